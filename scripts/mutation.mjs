// `npm run mutation [module...]`: StrykerJS on the security-critical modules, one run per module
// (stryker.config.mjs), each failing below 85% (timeouts count as killed). Runs are incremental,
// from what is kept in git under mutation/: <module>.incremental.json (Stryker's last results) and
// <module>.sha256 (digests of the module's source and of its tests at that run).
// - neither changed: the module is not run again; its recorded score is checked;
// - only the source changed: `stryker run --incremental` re-tests the mutants whose code changed;
// - a test changed: all of its mutants (Stryker's command runner cannot see which tests changed).
// `--force` re-tests everything; `--recorded` skips the modules never run (CI, for now). Reports: reports/mutation/<module>.html and .json.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { MUTATION_MODULES } from "./mutation-modules.mjs";

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const forceAll = args.includes("--force");
// --recorded: only the modules with a recorded run in mutation/ (CI, until every module is seeded).
const recordedOnly = args.includes("--recorded");
const wanted = args.filter((a) => !a.startsWith("--"));
const unknown = wanted.filter((w) => !MUTATION_MODULES.some((m) => m.name === w));
if (unknown.length > 0) {
  console.error(
    `mutation: unknown module ${unknown.join(", ")}; one of ${MUTATION_MODULES.map((m) => m.name).join(", ")}`,
  );
  process.exit(2);
}
const modules = MUTATION_MODULES.filter((m) => wanted.length === 0 || wanted.includes(m.name));
const stryker = join(dirname(require.resolve("@stryker-mutator/core/package.json")), "bin", "stryker.js");
mkdirSync("mutation", { recursive: true });

const digestOf = (files) => {
  const hash = createHash("sha256");
  for (const file of [...files].sort()) hash.update(`${file}\0`).update(readFileSync(file)).update("\0");
  return hash.digest("hex");
};
const BREAK = 85;

const rows = [];
let failed = false;
const started = Date.now();
for (const m of modules) {
  const stampFile = `mutation/${m.name}.sha256`;
  const incremental = `mutation/${m.name}.incremental.json`;
  const digest = `source ${digestOf([m.file].flat())}\ntests ${digestOf(m.tests)}\n`;
  const recorded = existsSync(stampFile) && existsSync(incremental) ? readFileSync(stampFile, "utf8") : "";
  if (recordedOnly && recorded === "") {
    console.log(
      `== mutation: ${m.name} (${m.file}) has no recorded run yet: not checked (seed it with npm run mutation -- ${m.name})`,
    );
    continue;
  }
  const [sourceSame, testsSame] = [0, 1].map((i) => recorded.split("\n")[i] === digest.split("\n")[i]);
  if (!forceAll && sourceSame && testsSame) {
    const score = scoreOf(incremental);
    const ok = Number.parseFloat(score.score) >= BREAK;
    console.log(`== mutation: ${m.name} (${m.file}) unchanged since its last run: ${score.score}`);
    rows.push({ module: m.name, ...score, seconds: 0, ok });
    failed ||= !ok;
    continue;
  }
  const force = forceAll || !testsSame || recorded === "";
  console.log(`== mutation: ${m.name} (${m.file})${force ? ", all mutants" : ", the mutants whose code changed"}`);
  const t0 = Date.now();
  const run = spawnSync(process.execPath, [stryker, "run", "stryker.config.mjs", ...(force ? ["--force"] : [])], {
    stdio: "inherit",
    env: { ...process.env, CRED_AUTH_MUTATION_MODULE: m.name },
  });
  const seconds = Math.round((Date.now() - t0) / 1000);
  const score = scoreOf(`reports/mutation/${m.name}.json`);
  rows.push({ module: m.name, ...score, seconds, ok: run.status === 0 });
  if (run.status === 0) writeFileSync(stampFile, digest);
  else failed = true;
}

console.log("\nmodule | mutants | killed | timeout | survived | no coverage | score | seconds");
for (const r of rows) {
  console.log(
    `${r.module} | ${r.total} | ${r.killed} | ${r.timeout} | ${r.survived} | ${r.noCoverage} | ${r.score} | ${r.seconds}${r.ok ? "" : "  FAILED"}`,
  );
}
console.log(`mutation: ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(failed ? 1 : 0);

/** Counts of the mutation-testing-report-schema JSON report; the score counts timeouts as killed. */
function scoreOf(path) {
  if (!existsSync(path)) return { total: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, score: "n/a" };
  const report = JSON.parse(readFileSync(path, "utf8"));
  const count = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0 };
  for (const file of Object.values(report.files))
    for (const mutant of file.mutants) if (mutant.status in count) count[mutant.status]++;
  const valid = count.Killed + count.Timeout + count.Survived + count.NoCoverage;
  const score = valid === 0 ? "n/a" : `${((100 * (count.Killed + count.Timeout)) / valid).toFixed(1)}%`;
  return {
    total: valid,
    killed: count.Killed,
    timeout: count.Timeout,
    survived: count.Survived,
    noCoverage: count.NoCoverage,
    score,
  };
}
