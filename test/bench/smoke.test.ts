// The benchmarks' smoke run, as CI runs it: it must complete and report every target. Times are
// never asserted (speed is the benchmarks' business, and this machine is shared); the counts
// are correctness and are asserted exactly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, runNode } from "./support.ts";

interface Check {
  name: string;
  expected: unknown;
  actual: unknown;
  pass: boolean;
}
interface Entry {
  id: string;
  kind: "time" | "count" | "memory" | "phase";
  median?: number;
  baselineMedian?: number;
  ratio?: number;
  target?: number | null;
  pass?: boolean | null;
  checks: Check[];
  load?: number[];
}
interface Report {
  mode: string;
  machine: { cpu: string; nproc: number; node: string };
  entries: Entry[];
  correct: boolean;
}

function checkNamed(entry: Entry, pattern: RegExp): Check {
  const found = entry.checks.find((c) => pattern.test(c.name));
  assert.ok(found, `entry ${entry.id} has no check matching ${pattern}: ${entry.checks.map((c) => c.name).join("; ")}`);
  return found;
}

test("npm run bench -- --smoke completes, reports all six targets and the exact token request counts", {
  timeout: 180_000,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "cred-auth-bench-smoke-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, "results.json");
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(dir, "home"), TMPDIR: dir };

  const result = await runNode([join(ROOT, "bench", "run.mjs"), "--smoke", "--out", out], env);
  const written = await readFile(out, "utf8").catch(() => undefined);
  assert.ok(written !== undefined, `bench/run.mjs --smoke wrote no results (exit ${result.code}):\n${result.stderr}`);
  const report = JSON.parse(written) as Report;
  const byId = new Map(report.entries.map((e) => [e.id, e]));
  assert.equal(report.mode, "smoke");
  assert.equal(report.machine.node, process.version, "both sides run on the project's Node");

  for (const id of ["1", "2", "3", "4", "6"]) {
    const entry = byId.get(id);
    assert.ok(entry, `target ${id} missing from results.json`);
    assert.ok(entry.median! > 0 && entry.baselineMedian! > 0, `target ${id} has no measurement`);
    // The ratio is of the unrounded medians; the medians are reported to 0.01.
    assert.ok(
      Math.abs(entry.ratio! - entry.median! / entry.baselineMedian!) < 0.01,
      `target ${id}: ratio ${entry.ratio} is not median / baseline`,
    );
    assert.equal(typeof entry.target, "number");
    assert.equal(typeof entry.pass, "boolean");
  }

  // Row L: print-token's cached path split into node's start-up, loading and work, each measured.
  for (const id of ["L", "La", "Lb", "Lc", "Ld"])
    assert.ok((byId.get(id)?.median ?? 0) > 0, `row ${id} has no measurement`);
  assert.ok(byId.get("2")!.load?.length === 2, "the machine's load is recorded with each row");

  // Correctness, not speed: asserted exactly.
  const noHeavy = (id: string, what: RegExp) => assert.equal(checkNamed(byId.get(id)!, what).actual, "none");
  noHeavy("1", /heavy modules loaded by the import/);
  noHeavy("2", /heavy modules loaded on the cached path/);
  assert.equal(checkNamed(byId.get("2")!, /token requests in \d+ cached runs/).actual, 0);
  assert.equal(checkNamed(byId.get("4")!, /second process's default\(\)/).actual, 0);
  assert.equal(checkNamed(byId.get("4")!, /token requests in \d+ timed default\(\) runs/).actual, 0);
  const counts = byId.get("5");
  assert.ok(counts, "target 5 missing from results.json");
  assert.equal(checkNamed(counts, /1000 concurrent getAccessToken/).actual, 1);
  assert.equal(checkNamed(counts, /distinct tokens they got/).actual, 1);
  assert.equal(checkNamed(counts, /20 print-token processes at once/).actual, 1);
  assert.equal(checkNamed(counts, /processes that printed a token/).actual, 20);
  assert.equal(checkNamed(counts, /distinct tokens printed/).actual, 1);
  assert.equal(checkNamed(counts, /valid at the emulator/).actual, true);
  assert.equal(checkNamed(counts, /token cache holds it/).actual, true);
  // One resolution per process: N concurrent default() make one token request, N = 1 and 1000.
  const perProcess = byId.get("5c");
  assert.ok(perProcess, "row 5c missing from results.json");
  assert.equal(checkNamed(perProcess, /token requests of 1 concurrent default/).actual, 1);
  assert.equal(checkNamed(perProcess, /token requests of 1000 concurrent default/).actual, 1);
  assert.equal(checkNamed(perProcess, /distinct credentials \/ tokens of those 1000 calls/).actual, "1 / 1");
  // The Python original's library, side by side (CI installs python3-google-auth).
  if (process.env.CI === "true") assert.ok(byId.get("7"), "row 7 (Python google-auth) missing under CI");

  assert.equal(report.correct, true, `a correctness check failed:\n${result.stdout}`);
  assert.equal(result.code, 0, `bench/run.mjs --smoke exited ${result.code}: ${result.stderr}`);
  assert.match(
    result.stdout,
    /^#\s+benchmark\s+median\s+baseline\s+ratio\s+target\s+result\s+cpu ratio\s+load/m,
    "prints the table",
  );
});
