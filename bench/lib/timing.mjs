// Whole-process timing: hyperfine when it is installed, else a small harness of our own.
// Either way every sample is one complete process run, and medians are what we quote.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The hyperfine binary to use, or undefined when there is none (or `--no-hyperfine`). */
export function findHyperfine(disabled) {
  if (disabled) return undefined;
  for (const candidate of ["/usr/bin/hyperfine", "hyperfine"]) {
    const probe = spawnSync(candidate, ["--version"], { encoding: "utf8" });
    if (probe.status === 0) return { path: candidate, version: probe.stdout.trim() };
  }
  return undefined;
}

/**
 * Times each command (`{ argv, env }`, argv[0] the executable) over `runs` runs after
 * `warmup` runs. Commands sharing an env are timed by one hyperfine call. A command that
 * exits non-zero fails the measurement. Returns one array of samples (milliseconds) per command.
 */
export async function timeCommands(commands, { runs, warmup, hyperfine }) {
  if (!hyperfine) return timeWithHarness(commands, { runs, warmup });
  const samples = new Array(commands.length);
  for (const group of groupByEnv(commands)) {
    const times = await timeWithHyperfine(group.map((i) => commands[i]), { runs, warmup, hyperfine });
    group.forEach((commandIndex, j) => (samples[commandIndex] = times[j]));
  }
  return samples;
}

async function timeWithHyperfine(commands, { runs, warmup, hyperfine }) {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-hyperfine-"));
  const out = join(dir, "times.json");
  try {
    // -N: no shell in between, so a sample is the process alone.
    const args = ["-N", "--style", "none", "--warmup", String(warmup), "--runs", String(runs), "--export-json", out];
    args.push(...commands.map((c) => c.argv.map(shellWord).join(" ")));
    const { code, stderr } = await run([hyperfine.path, ...args], { env: commands[0].env });
    if (code !== 0) throw new Error(`hyperfine failed (exit ${code}): ${stderr.trim().split("\n").slice(-3).join(" | ")}`);
    const { results } = JSON.parse(readFileSync(out, "utf8"));
    return results.map((r) => r.times.map((seconds) => seconds * 1000));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Our own harness: runs the commands interleaved (A B A B ...) so drift hits both sides alike. */
async function timeWithHarness(commands, { runs, warmup }) {
  const samples = commands.map(() => []);
  for (let round = 0; round < warmup + runs; round++) {
    for (const [i, command] of commands.entries()) {
      const started = process.hrtime.bigint();
      const { code, stderr } = await run(command.argv, { env: command.env });
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) throw new Error(`${command.argv.join(" ")} exited ${code}: ${stderr.trim().split("\n").slice(-2).join(" | ")}`);
      if (round >= warmup) samples[i].push(elapsedMs);
    }
  }
  return samples;
}

/**
 * Runs `argv` to completion without blocking this process's event loop (the emulator the
 * commands talk to lives in it). Resolves `{ code, stdout, stderr }`.
 */
export function run(argv, { env, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { env, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    const stdout = [];
    const stderr = [];
    child.stdout.on("data", (chunk) => stdout.push(chunk));
    child.stderr.on("data", (chunk) => stderr.push(chunk));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") }),
    );
    if (input !== undefined) child.stdin.end(input);
  });
}

export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function groupByEnv(commands) {
  const groups = new Map();
  commands.forEach((command, i) => {
    const key = JSON.stringify(Object.entries(command.env ?? {}).sort());
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return [...groups.values()];
}

/** One argument as hyperfine -N splits a command line (POSIX shell-words rules). */
function shellWord(word) {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
