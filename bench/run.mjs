#!/usr/bin/env node
// cred-auth's benchmarks (issue 8). Whole processes, timed over repeated runs, each figure a
// ratio against a baseline measured in the same run; counts where correctness is the point.
// Usage: node bench/run.mjs [--smoke] [--runs N] [--warmup N] [--only IDS] [--out FILE] [--no-hyperfine]
// (`npm run bench` builds first). See bench/README.md.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, release, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { countInstructions, findHyperfine, hasValgrind, median, run, timeCommands } from "./lib/timing.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "dist", "cli.js");
const fixture = (name) => join(ROOT, "bench", "fixtures", name);
const preload = (name) => join(ROOT, "bench", "lib", name);
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** Packages that must not load on the light paths (the import, print-token's cached path). */
const HEAVY = [
  "google-auth-library",
  "gaxios",
  "gcp-metadata",
  "gtoken",
  "conf",
  "ink",
  "ink-text-input",
  "react",
  "node-fetch",
  "open",
  "tslab",
];
const PROCESSES = 20;

const { values: flags } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    runs: { type: "string" },
    warmup: { type: "string" },
    out: { type: "string" },
    only: { type: "string" },
    "no-hyperfine": { type: "boolean", default: false },
    instructions: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (flags.help) {
  process.stdout.write(
    "Usage: node bench/run.mjs [--smoke] [--runs N] [--warmup N] [--only IDS] [--out FILE] [--no-hyperfine]\n" +
      "  --only 2,3,4,6,L: only those targets (L: print-token's cached path split into node start-up, load and work)\n" +
      "  --instructions N: also targets 2, 4 and 5c in instructions (valgrind), N alternating runs a side (rows 2i, 4i, 5ci)\n",
  );
  process.exit(0);
}
if (Number(process.versions.node.split(".")[0]) < 22) {
  // Both sides run on this process's node: it must be the project's (npm run bench puts it first on PATH).
  process.stderr.write(`bench: node ${process.version} is not the project's Node 22; run it with npm run bench\n`);
  process.exit(2);
}
// 40 alternating pairs at least for the figures of print-token's cached path (issue 41).
const runs = positiveInt(flags.runs, flags.smoke ? 3 : 40);
const warmup = positiveInt(flags.warmup, flags.smoke ? 1 : 3, true);
const outFile = flags.out ?? join(ROOT, "bench", "results.json");
const hyperfine = findHyperfine(flags["no-hyperfine"]);
/** Targets to run (`--only 2,4,L`); every one by default. */
const only = flags.only?.split(",").map((id) => id.trim());
const wanted = (id) => only === undefined || only.includes(id) || only.includes(id.replace(/[a-z]$/, ""));

const { startEmulator, DEMO_CLIENT, EMULATOR_PATHS } = await import("cred-auth/emulator");
const tokenCache = await import("../dist/token-cache/index.js");

const work = mkdtempSync(join(tmpdir(), "cred-auth-bench-"));
const emu = await startEmulator({ port: 0 });
let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
} finally {
  await emu.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(exitCode);

async function main() {
  const env = isolatedEnv(work);
  const tokenUrl = emu.url + EMULATOR_PATHS.token;
  const userFile = (name) => {
    const refreshToken = emu.issueRefreshToken({ scopes: [SCOPE] });
    const file = {
      type: "authorized_user",
      client_id: DEMO_CLIENT.clientId,
      client_secret: DEMO_CLIENT.clientSecret,
      refresh_token: refreshToken,
      token_uri: tokenUrl,
      scopes: [SCOPE],
    };
    const path = join(work, name);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, JSON.stringify(file, null, 2), { mode: 0o600 });
    return { path, file };
  };
  const node = (...args) => ({ argv: [process.execPath, ...args], env });
  const withEnv = (command, extra) => ({ argv: command.argv, env: { ...command.env, ...extra } });
  const requests = () => emu.stats().tokenRequests;
  const executions = warmup + runs;

  const machine = machineInfo();
  process.stderr.write(
    `bench: ${flags.smoke ? "smoke" : "full"} run, ${runs} runs + ${warmup} warmup per command, ${hyperfine ? hyperfine.version : "own harness"}, ` +
      `${machine.cpu} x${machine.nproc}, node ${machine.node}\n`,
  );

  const entries = [];
  const instructionRuns = flags.instructions === undefined ? 0 : positiveInt(flags.instructions, 5);
  if (instructionRuns && !hasValgrind()) throw new Error("--instructions needs valgrind and callgrind_annotate");
  /** Row `${id}i`: the same pair in instructions, which the machine's load does not move (lib/timing.mjs). */
  const counted = async ({ id, name, target, command, baseline }) => {
    process.stderr.write(`bench: ${id}i ${name} (instructions, ${instructionRuns} runs a side)\n`);
    const load = loadavg()[0];
    const [measured, base] = await countInstructions([command, baseline], { runs: instructionRuns });
    const entry = ratioEntry({
      id: `${id}i`,
      name: `${name}, instructions`,
      kind: "instructions",
      unit: "M",
      target,
      samples: measured.samples,
      baselineSamples: base.samples,
      checks: [],
    });
    entry.load = [round(load), round(loadavg()[0])];
    entries.push(entry);
  };
  const timed = async ({ id, name, target, command, baseline, checks = [], few, pairs = false }) => {
    if (!wanted(id)) return { checks: [] };
    if (instructionRuns && ["2", "4"].includes(id)) await counted({ id, name, target, command, baseline });
    process.stderr.write(`bench: ${id} ${name}\n`);
    const counts = few ? { runs: Math.min(runs, few), warmup: Math.min(warmup, 1) } : { runs, warmup };
    const load = loadavg()[0];
    // pairs: one run a side at a time, the order alternating (A B, B A, ...).
    const [measured, base] = await timeCommands([command, baseline], { ...counts, hyperfine, round: pairs ? 1 : 5 });
    const entry = ratioEntry({
      id,
      name,
      kind: "time",
      unit: "ms",
      target,
      samples: measured.samples,
      baselineSamples: base.samples,
      checks,
    });
    entry.load = [round(load), round(loadavg()[0])];
    // CPU time (user + system) is less sensitive to other processes than wall time: a second opinion.
    if (measured.cpuMs !== undefined)
      Object.assign(entry, {
        cpuMs: round(measured.cpuMs),
        baselineCpuMs: round(base.cpuMs),
        cpuRatio: round(measured.cpuMs / base.cpuMs, 3),
      });
    entries.push(entry);
    return entry;
  };

  // 1. Importing the package does no I/O and loads nothing heavy.
  const importLoads = wanted("1") ? await heavyModulesLoaded(node(fixture("import-cred-auth.mjs"))) : [];
  await timed({
    id: "1",
    name: 'cold import "cred-auth" vs import "google-auth-library"',
    target: 1.15,
    command: node(fixture("import-cred-auth.mjs")),
    baseline: node(fixture("import-gal.mjs")),
    checks: [check("heavy modules loaded by the import", "none", importLoads.join(", ") || "none")],
  });

  // 2. print-token with a valid cached access token.
  const printUser = userFile("print/creds.json");
  const printCached = node(CLI, "print-token", printUser.path);
  const primed = await expectOk(printCached, "priming print-token");
  const printLoads = await heavyModulesLoaded(printCached);
  let before = requests();
  await timed({
    id: "2",
    name: "print-token, cached token vs node -e 0",
    target: 1.1,
    pairs: true,
    command: printCached,
    baseline: node("-e", "0"),
    checks: [check("heavy modules loaded on the cached path", "none", printLoads.join(", ") || "none")],
  }).then((entry) => entry.checks.push(check(`token requests in ${executions} cached runs`, 0, requests() - before)));
  const cachedToken = primed.stdout.trim();
  // L. The same run split into node's start-up, loading the command line, and the work.
  if (wanted("L")) entries.push(...(await phases(printCached, node("-e", "0"), printUser.path)));

  // 3. print-token that must refresh (--fresh: the expired-cache path: lock, refresh, write),
  //    vs the least a script can do with google-auth-library.
  before = requests();
  await timed({
    id: "3",
    name: "print-token --fresh (refresh) vs google-auth-library refresh",
    target: 1.2,
    command: node(CLI, "print-token", "--fresh", printUser.path),
    baseline: node(fixture("gal-refresh.mjs"), printUser.path),
  }).then((entry) =>
    entry.checks.push(
      check(`token requests in ${2 * executions} runs (one each)`, 2 * executions, requests() - before),
    ),
  );
  // The same without any token cache, to show what the cache's bookkeeping costs.
  await timed({
    id: "3b",
    name: "print-token, CRED_AUTH_TOKEN_CACHE=off vs google-auth-library refresh",
    target: null,
    command: withEnv(node(CLI, "print-token", printUser.path), { CRED_AUTH_TOKEN_CACHE: "off" }),
    baseline: node(fixture("gal-refresh.mjs"), printUser.path),
  });

  // 4. default() in a fresh process: cached user credentials and a valid cached access token.
  const cached = userFile("home/.config/cred/cred_credentials.json");
  const defaultScript = node(fixture("default.mjs"));
  if (wanted("4")) await defaultTarget();
  async function defaultTarget() {
    before = requests();
    await expectOk(defaultScript, "priming default()");
    const primingRequests = requests() - before;
    before = requests();
    await expectOk(defaultScript, "default() with a warm token cache");
    const warmRequests = requests() - before;
    before = requests();
    await timed({
      id: "4",
      name: "default(), warm caches vs new UserRefreshClient(file)",
      target: 1.0,
      command: defaultScript,
      baseline: node(fixture("gal-construct.mjs"), cached.path),
      checks: [
        check("token requests of the first default() (cold token cache)", 1, primingRequests),
        check("token requests of a second process's default()", 0, warmRequests),
      ],
    }).then((entry) =>
      entry.checks.push(check(`token requests in ${executions} timed default() runs`, 0, requests() - before)),
    );
  }

  // 5. Counts: one refresh, however many ask at once.
  if (wanted("5")) await concurrencyCounts();
  async function concurrencyCounts() {
    process.stderr.write("bench: 5 concurrency counts\n");
    entries.push({
      id: "5",
      name: "concurrent token requests",
      kind: "count",
      checks: [...(await concurrentCalls(node)), ...(await concurrentProcesses(node, userFile))],
    });
  }

  // 5c. N concurrent default() in one process: one resolution, one token request, for any N.
  const adc = userFile("adc/creds.json");
  const concurrentDefault = (n) =>
    withEnv(node(fixture("default-concurrent.mjs"), String(n)), {
      GOOGLE_APPLICATION_CREDENTIALS: adc.path,
      CRED_AUTH_TOKEN_CACHE: "off",
    });
  const perProcess = [];
  for (const n of wanted("5c") ? [1, 1000] : []) {
    before = requests();
    const { calls, distinctTokens, distinctCredentials } = JSON.parse(
      (await expectOk(concurrentDefault(n), `${n} concurrent default()`)).stdout,
    );
    perProcess.push(
      check(`token requests of ${calls} concurrent default() + getAccessToken()`, 1, requests() - before),
      check(
        `distinct credentials / tokens of those ${calls} calls`,
        "1 / 1",
        `${distinctCredentials} / ${distinctTokens}`,
      ),
    );
  }
  const concurrentRow = {
    id: "5c",
    name: "1000 concurrent default() + token vs 1 (one process, no token cache)",
    target: 1.2,
    command: concurrentDefault(1000),
    baseline: concurrentDefault(1),
  };
  if (instructionRuns && wanted("5c")) await counted(concurrentRow);
  before = requests();
  await timed({
    id: "5c",
    name: "1000 concurrent default() + token vs 1 (one process, no token cache)",
    target: 1.2,
    command: concurrentDefault(1000),
    baseline: concurrentDefault(1),
    checks: perProcess,
  }).then((entry) =>
    entry.checks.push(
      check(`token requests in ${2 * executions} timed runs (one each)`, 2 * executions, requests() - before),
    ),
  );

  // 7, 8. Side by side with the Python original's library and with gcloud (when installed).
  if (["7", "7b", "8"].some(wanted)) await peers({ timed, printUser, printCached, node, requests, env });

  // 6. Peak memory of print-token's cached path.
  if (wanted("6")) await peakMemory();
  async function peakMemory() {
    process.stderr.write("bench: 6 peak memory\n");
    const load = loadavg()[0];
    const rss = await maxRss([printCached, node("-e", "0")], runs);
    const memory = ratioEntry({
      id: "6",
      name: "print-token cached, max RSS vs node -e 0",
      kind: "memory",
      unit: "KiB",
      target: 1.05,
      samples: rss.samples[0],
      baselineSamples: rss.samples[1],
      checks: [],
    });
    memory.load = [round(load), round(loadavg()[0])];
    entries.push(memory);
    // Most of a node process's RSS is the node binary's own pages, and how many of them the kernel
    // maps in depends on the page cache; the private (anonymous) memory is what the code controls.
    if (rss.anonSamples[0].length > 0) {
      entries.push(
        ratioEntry({
          id: "6b",
          name: "print-token cached, anonymous RSS at exit vs node -e 0",
          kind: "memory",
          unit: "KiB",
          target: null,
          samples: rss.anonSamples[0],
          baselineSamples: rss.anonSamples[1],
          checks: [],
        }),
      );
    }
  }

  if (!cachedToken)
    entries.find((e) => e.id === "2")?.checks.push(check("print-token printed a token", "a token", "nothing"));
  machine.loadAfter = loadavg().map((l) => Number(l.toFixed(2)));
  const report = {
    date: new Date().toISOString(),
    mode: flags.smoke ? "smoke" : "full",
    runs,
    warmup,
    timer: hyperfine ? hyperfine.version : "own harness (spawn + process.hrtime)",
    machine,
    entries,
    correct: entries.every((e) => e.checks.every((c) => c.pass)),
    targetsMet: entries.every((e) => e.pass !== false),
  };
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(table(entries));
  process.stdout.write(
    `\n${machine.cpu} x${machine.nproc}, node ${machine.node}, load ${machine.loadBefore.join(" ")} -> ${machine.loadAfter.join(" ")}; results: ${outFile}\n`,
  );
  if (!report.correct) process.stderr.write("bench: a correctness check failed (see the table)\n");
  return report.correct ? 0 : 1;

  /** 5a: 1,000 concurrent getAccessToken() calls on one credentials object. */
  async function concurrentCalls(node) {
    const result = await expectOk(node(fixture("concurrent.mjs"), emu.url), "1,000 concurrent getAccessToken()");
    const { calls, distinctTokens, before, after } = JSON.parse(result.stdout);
    return [
      check(`token requests for ${calls} concurrent getAccessToken()`, 1, after - before),
      check("distinct tokens they got", 1, distinctTokens),
    ];
  }

  /** 5b: 20 processes print-token at once on the same expired credentials. */
  async function concurrentProcesses(node, userFile) {
    const expired = userFile("expired/creds.json");
    // The key print-token makes: the file's identity as cred-auth's model names it (camelCase).
    const identity = {
      type: "authorized_user",
      clientId: expired.file.client_id,
      refreshToken: expired.file.refresh_token,
    };
    const key = tokenCache.tokenCacheKey(identity, expired.file.scopes, expired.file.token_uri);
    const cacheDir = join(env.XDG_CACHE_HOME, "cred-auth", "tokens");
    tokenCache.writeCachedToken(
      key,
      { access_token: "expired-token", expiry_date: Date.now() - 60_000, token_type: "Bearer" },
      { dir: cacheDir },
    );
    const before = requests();
    // CRED_AUTH_DEBUG: a process that fails says where (stack on stderr), nothing else changes.
    const debugEnv = { ...env, CRED_AUTH_DEBUG: "1" };
    const outcomes = await Promise.all(
      Array.from({ length: PROCESSES }, () => run(node(CLI, "print-token", expired.path).argv, { env: debugEnv })),
    );
    const made = requests() - before;
    const tokens = outcomes.filter((o) => o.code === 0).map((o) => o.stdout.trim());
    const errors = [
      ...new Set(
        outcomes
          .filter((o) => o.code !== 0)
          .map((o) => `exit ${o.code}: ${o.stderr.trim().split("\n").slice(0, 3).join(" | ")}`),
      ),
    ];
    const distinct = new Set(tokens);
    const [token] = distinct;
    const cachedAfter = tokenCache.readCachedToken(key, { dir: cacheDir });
    const cacheValid =
      cachedAfter !== undefined &&
      cachedAfter.access_token === token &&
      tokenCache.hasValidity(cachedAfter, tokenCache.MIN_VALIDITY_MS);
    return [
      check(`token requests of ${PROCESSES} print-token processes at once`, 1, made),
      check("processes that printed a token", PROCESSES, tokens.length),
      check("errors of the others", "none", errors.join(" / ") || "none"),
      check("distinct tokens printed", 1, distinct.size),
      check("the token is valid at the emulator", true, token !== undefined && emu.checkAccessToken(token) !== null),
      check("token cache holds it, valid, afterwards", true, cacheValid),
    ];
  }
}

/**
 * 7: Python google-auth (Debian's python3-google-auth) refreshing the same authorized_user file
 * and printing the token; 8: gcloud printing an application-default token. Both only over
 * loopback (the file's token_uri, CLOUDSDK_AUTH_TOKEN_HOST). A missing peer is a line, not a row.
 */
async function peers({ timed, printUser, printCached, node, requests, env }) {
  const python = "/usr/bin/python3";
  const probe = await run([python, "-c", "import google.oauth2.credentials"], { env }).catch(() => ({ code: 1 }));
  if (probe.code !== 0) {
    process.stderr.write("bench: 7 skipped: no Python google-auth (apt-get install python3-google-auth)\n");
  } else {
    const pyRefresh = { argv: [python, fixture("py-refresh.py"), printUser.path], env };
    const before = requests();
    await timed({
      id: "7",
      name: "print-token --fresh vs Python google-auth refresh + print",
      target: null,
      command: node(CLI, "print-token", "--fresh", printUser.path),
      baseline: pyRefresh,
    }).then((entry) =>
      entry.checks.push(check("token requests (one per run on both sides)", 2 * (warmup + runs), requests() - before)),
    );
    await timed({
      id: "7b",
      name: "print-token, cached token vs Python google-auth refresh + print",
      target: null,
      command: printCached,
      baseline: pyRefresh,
    });
  }
  const gcloud = "/usr/bin/gcloud";
  if (!existsSync(gcloud)) {
    process.stderr.write(`bench: 8 skipped: no ${gcloud}\n`);
    return;
  }
  if (flags.smoke) {
    process.stderr.write("bench: 8 skipped in smoke mode (gcloud takes seconds a run)\n");
    return;
  }
  // gcloud reads its ADC file from $CLOUDSDK_CONFIG and posts to CLOUDSDK_AUTH_TOKEN_HOST (the
  // token URL itself). It takes seconds per run: fewer runs.
  const config = join(work, "gcloud");
  mkdirSync(config, { recursive: true, mode: 0o700 });
  writeFileSync(join(config, "application_default_credentials.json"), readFileSync(printUser.path), { mode: 0o600 });
  const gcloudEnv = {
    ...env,
    CLOUDSDK_CONFIG: config,
    CLOUDSDK_AUTH_TOKEN_HOST: printUser.file.token_uri,
    CLOUDSDK_CORE_DISABLE_PROMPTS: "1",
    CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK: "1",
    CLOUDSDK_CORE_DISABLE_USAGE_REPORTING: "1",
  };
  const before = requests();
  const gcloudRuns = Math.min(runs, 5) + Math.min(warmup, 1);
  await timed({
    id: "8",
    name: "print-token, cached token vs gcloud auth application-default print-access-token",
    target: null,
    few: 5,
    command: printCached,
    baseline: { argv: [gcloud, "auth", "application-default", "print-access-token"], env: gcloudEnv },
  }).then((entry) =>
    entry.checks.push(check(`token requests in ${gcloudRuns} gcloud runs (one each)`, gcloudRuns, requests() - before)),
  );
}

/**
 * L: print-token's cached path and `node -e 0`, in alternating pairs (B A, A B, ...), each run
 * under bench/lib/phases.cjs: node's start-up (to the first user code), loading the command line
 * (to its first touch of the credentials file) and the work (to the exit), per run. The rows give
 * the medians; results.json every run.
 */
async function phases(command, baseline, file) {
  process.stderr.write("bench: L print-token's cached path: start-up, load, work\n");
  const load = loadavg()[0];
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-phases-"));
  const runsOf = [[], []];
  try {
    for (let pair = 0; pair < warmup + runs; pair++) {
      const order = pair % 2 ? [0, 1] : [1, 0];
      for (const side of order) {
        const { argv, env } = side === 0 ? command : baseline;
        const out = join(dir, `${pair}-${side}`);
        const extra = side === 0 ? { BENCH_PHASES_FILE: file } : {};
        await expectOk(
          {
            argv: [argv[0], "--require", preload("phases.cjs"), ...argv.slice(1)],
            env: { ...env, ...extra, BENCH_PHASES_OUT: out },
          },
          "phases run",
        );
        const [ready, working, exited] = readFileSync(out, "utf8").trim().split(" ").map(Number);
        if (pair >= warmup)
          runsOf[side].push({ startup: ready, load: working - ready, work: exited - working, total: exited });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [cli, floor] = runsOf;
  const of = (side, key) => side.map((r) => r[key]);
  const loadNow = [round(load), round(loadavg()[0])];
  const row = (id, name, samples, baselineSamples) => ({
    ...ratioEntry({ id, name, kind: "phase", unit: "ms", target: null, samples, baselineSamples, checks: [] }),
    load: loadNow,
  });
  const part = (id, name, samples) => ({
    id,
    name,
    kind: "phase",
    unit: "ms",
    median: round(median(samples)),
    samples: samples.map((s) => round(s)),
    checks: [],
    load: loadNow,
  });
  return [
    row(
      "L",
      "print-token cached, in-process to exit vs node -e 0 (phases preload)",
      of(cli, "total"),
      of(floor, "total"),
    ),
    row("La", "  node's start-up (to the first user code)", of(cli, "startup"), of(floor, "startup")),
    part("Lb", "  loading the command line (to its first touch of the file)", of(cli, "load")),
    part("Lc", "  the work (file, cache key, cache entry, printing) and exit", of(cli, "work")),
    part("Ld", "  node -e 0: user code to exit", of(floor, "work")),
  ];
}

/**
 * Each command run `count` times (interleaved) under a preload that reports its peak RSS and
 * (Linux) its anonymous RSS at exit. Returns both, per command.
 */
async function maxRss(commands, count) {
  const samples = commands.map(() => []);
  const anonSamples = commands.map(() => []);
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-rss-"));
  try {
    for (let round = 0; round < count; round++) {
      for (const [i, command] of commands.entries()) {
        const out = join(dir, `${round}-${i}`);
        const [exe, ...args] = command.argv;
        await expectOk(
          { argv: [exe, "--require", preload("max-rss.cjs"), ...args], env: { ...command.env, BENCH_RSS_OUT: out } },
          "max RSS run",
        );
        const [peak, anon] = readFileSync(out, "utf8").trim().split(" ").map(Number);
        samples[i].push(peak);
        if (anon > 0) anonSamples[i].push(anon);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { samples, anonSamples };
}

/** The heavy packages `command` loads (resolved modules recorded by a preloaded hook). */
async function heavyModulesLoaded(command) {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-trace-"));
  const out = join(dir, "loads.txt");
  try {
    const [exe, ...args] = command.argv;
    await expectOk(
      { argv: [exe, "--require", preload("trace-loads.cjs"), ...args], env: { ...command.env, BENCH_TRACE_OUT: out } },
      "module trace",
    );
    const loaded = readFileSync(out, "utf8").split("\n").filter(Boolean);
    if (loaded.length === 0) throw new Error("the module trace recorded nothing (node:module registerHooks missing?)");
    const packages = new Set();
    for (const url of loaded) {
      // Installed, or built into dist/vendor/ (ink, react, conf, open: scripts/build.mjs): dist/vendor/NAME.js.
      const match =
        /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url) ?? /\/dist\/vendor\/((?:@[^/]+\/)?[^/.]+)[./]/.exec(url);
      if (match && HEAVY.includes(match[1])) packages.add(match[1]);
    }
    return [...packages].sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function expectOk(command, what) {
  const result = await run(command.argv, { env: command.env });
  if (result.code !== 0)
    throw new Error(`${what} failed (exit ${result.code}): ${result.stderr.trim().split("\n").slice(-3).join(" | ")}`);
  return result;
}

function ratioEntry({ id, name, kind, unit, target, samples, baselineSamples, checks }) {
  const value = median(samples);
  const baseline = median(baselineSamples);
  const ratio = value / baseline;
  return {
    id,
    name,
    kind,
    unit,
    median: round(value),
    baselineMedian: round(baseline),
    ratio: round(ratio, 3),
    target,
    pass: target === null ? null : ratio <= target,
    samples: samples.map((s) => round(s)),
    baselineSamples: baselineSamples.map((s) => round(s)),
    checks,
  };
}

function check(name, expected, actual) {
  return { name, expected, actual, pass: actual === expected };
}

/** Children see a home of their own, no proxy, no inherited NODE_OPTIONS or compile cache. */
function isolatedEnv(root) {
  const home = join(root, "home");
  mkdirSync(join(home, ".config"), { recursive: true, mode: 0o700 });
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(root, "cache"),
    LANG: "C",
    NO_PROXY: "127.0.0.1,localhost",
  };
}

function machineInfo() {
  let cpu = "unknown CPU";
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpu;
  } catch {}
  return {
    cpu,
    nproc: availableParallelism(),
    node: process.version,
    os: `${process.platform} ${release()}`,
    loadBefore: loadavg().map((l) => Number(l.toFixed(2))),
  };
}

function table(entries) {
  const rows = [["#", "benchmark", "median", "baseline", "ratio", "target", "result", "cpu ratio", "load"]];
  for (const e of entries) {
    const load = e.load ? `${e.load[0].toFixed(1)}-${e.load[1].toFixed(1)}` : "";
    if (e.kind !== "count" && e.baselineMedian !== undefined) {
      const cpu = e.cpuRatio === undefined ? "" : `${e.cpuRatio.toFixed(2)}x`;
      rows.push([
        e.id,
        e.name,
        quantity(e.median, e.unit),
        quantity(e.baselineMedian, e.unit),
        `${e.ratio.toFixed(2)}x`,
        e.target === null ? "(info)" : `<= ${e.target}x`,
        e.pass === null ? "-" : e.pass ? "pass" : "MISS",
        cpu,
        load,
      ]);
    } else if (e.kind !== "count") {
      rows.push([e.id, e.name, quantity(e.median, e.unit), "", "", "(info)", "", "", load]);
    } else {
      rows.push([e.id, e.name, "", "", "", "", "", "", ""]);
    }
    for (const c of e.checks)
      rows.push(["", `  ${c.name}`, String(c.actual), "", "", `= ${c.expected}`, c.pass ? "ok" : "FAIL", "", ""]);
  }
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  const right = new Set([2, 3, 4, 7, 8]);
  const line = (r) =>
    r
      .map((cell, col) => (right.has(col) ? cell.padStart(widths[col]) : cell.padEnd(widths[col])))
      .join("  ")
      .trimEnd();
  return `${[line(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n")}\n`;
}

function quantity(value, unit) {
  if (unit === "M") return `${value.toFixed(1)} M`;
  return unit === "KiB" ? `${(value / 1024).toFixed(1)} MiB` : `${value.toFixed(1)} ms`;
}

function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function positiveInt(text, fallback, allowZero = false) {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) {
    process.stderr.write(`bench: expected a whole number, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return n;
}
