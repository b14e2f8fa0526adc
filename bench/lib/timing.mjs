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
 * `warmup` runs. A command that exits non-zero fails the measurement. Returns, per command,
 * `{ samples }` (wall milliseconds) and, with hyperfine, `cpuMs` (mean user + system time).
 *
 * hyperfine runs one command's runs back to back; on a shared machine the load changes
 * under it, so the runs are split into rounds of at most `round` (default 5) whose order
 * alternates (A B, B A, ...), and both sides see the same weather; `round: 1` makes pairs.
 */
export async function timeCommands(commands, { runs, warmup, hyperfine, round: perRound = 5 }) {
  if (!hyperfine) return timeWithHarness(commands, { runs, warmup });
  const results = commands.map(() => ({ samples: [], cpuTotalMs: 0 }));
  const groups = groupByEnv(commands);
  const rounds = Math.ceil(runs / perRound);
  for (let round = 0; round < rounds; round++) {
    const roundRuns = Math.floor(runs / rounds) + (round < runs % rounds ? 1 : 0);
    for (const group of round % 2 ? [...groups].reverse() : groups) {
      const order = round % 2 ? [...group].reverse() : group;
      const times = await timeWithHyperfine(
        order.map((i) => commands[i]),
        { runs: roundRuns, warmup: round === 0 ? warmup : 0, hyperfine },
      );
      order.forEach((commandIndex, j) => {
        results[commandIndex].samples.push(...times[j].samples);
        results[commandIndex].cpuTotalMs += times[j].cpuMs * times[j].samples.length;
      });
    }
  }
  return results.map((r) => ({ samples: r.samples, cpuMs: r.cpuTotalMs / r.samples.length }));
}

async function timeWithHyperfine(commands, { runs, warmup, hyperfine }) {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-hyperfine-"));
  const out = join(dir, "times.json");
  try {
    // -N: no shell in between, so a sample is the process alone.
    const args = ["-N", "--style", "none", "--warmup", String(warmup), "--runs", String(runs), "--export-json", out];
    args.push(...commands.map((c) => c.argv.map(shellWord).join(" ")));
    const { code, stderr } = await run([hyperfine.path, ...args], { env: commands[0].env });
    if (code !== 0)
      throw new Error(`hyperfine failed (exit ${code}): ${lastLines(stderr, 2)}${await whichFails(commands)}`);
    const { results } = JSON.parse(readFileSync(out, "utf8"));
    return results.map((r) => ({
      samples: r.times.map((seconds) => seconds * 1000),
      cpuMs: (r.user + r.system) * 1000,
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** hyperfine hides the output of a failing command: run each once more to say which, and why. */
async function whichFails(commands) {
  for (const command of commands) {
    const again = await run(command.argv, { env: command.env });
    if (again.code !== 0)
      return `; ${command.argv.slice(1).join(" ")} exited ${again.code}: ${lastLines(again.stderr, 4)}`;
  }
  return "; every command succeeds when run again (intermittent failure)";
}

function lastLines(text, count) {
  return text.trim().split("\n").slice(-count).join(" | ");
}

/** Our own harness: runs the commands interleaved (A B A B ...) so drift hits both sides alike. No CPU times. */
async function timeWithHarness(commands, { runs, warmup }) {
  const samples = commands.map(() => []);
  for (let round = 0; round < warmup + runs; round++) {
    for (const [i, command] of commands.entries()) {
      const started = process.hrtime.bigint();
      const { code, stderr } = await run(command.argv, { env: command.env });
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) throw new Error(`${command.argv.join(" ")} exited ${code}: ${lastLines(stderr, 4)}`);
      if (round >= warmup) samples[i].push(elapsedMs);
    }
  }
  return samples.map((s) => ({ samples: s, cpuMs: undefined }));
}

/**
 * Runs `argv` to completion without blocking this process's event loop (the emulator the
 * commands talk to lives in it). Resolves `{ code, stdout, stderr }`.
 */
export function run(argv, { env, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env,
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const stdout = [];
    const stderr = [];
    child.stdout.on("data", (chunk) => stdout.push(chunk));
    child.stderr.on("data", (chunk) => stderr.push(chunk));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      }),
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

/** Whether valgrind (and its callgrind_annotate) can count instructions here. */
export function hasValgrind() {
  // callgrind_annotate --version prints its version and exits 255.
  return ["valgrind", "callgrind_annotate"].every((tool) => !spawnSync(tool, ["--version"], { stdio: "ignore" }).error);
}

/**
 * User-space instructions of each command (`{ argv, env }`), `runs` times, the commands alternating
 * (A B, B A, ...): valgrind's callgrind, all threads. Less V8's search for a prime from its random hash
 * seed (`HashSeed::InitializeRoots`), which costs every Node process 5-13 M instructions at random and
 * is most of the spread of single counts; without it alternate counts agree within about 0.3%. No
 * load on the machine moves these counts. Returns, per command, `{ samples }` in millions.
 */
export async function countInstructions(commands, { runs }) {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-callgrind-"));
  const out = join(dir, "callgrind.out");
  const samples = commands.map(() => []);
  try {
    for (let round = 0; round < runs; round++) {
      const order = round % 2 ? [...commands.keys()].reverse() : [...commands.keys()];
      for (const i of order) {
        const { argv, env } = commands[i];
        const { code, stderr } = await run(["valgrind", "--tool=callgrind", `--callgrind-out-file=${out}`, ...argv], {
          env,
        });
        if (code !== 0) throw new Error(`valgrind ${argv.join(" ")} exited ${code}: ${lastLines(stderr, 4)}`);
        const annotated = spawnSync("callgrind_annotate", ["--inclusive=yes", "--threshold=100", out], {
          encoding: "utf8",
          maxBuffer: 1 << 28,
        }).stdout;
        const count = (pattern) => Number(pattern.exec(annotated)?.[1]?.replaceAll(",", "") ?? 0);
        const total = count(/([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/);
        if (!total) throw new Error(`callgrind_annotate gave no total for ${argv.join(" ")}`);
        samples[i].push((total - count(/([\d,]+) \([ \d.]+%\)\s+\S*HashSeed::InitializeRoots/)) / 1e6);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return samples.map((s) => ({ samples: s }));
}
