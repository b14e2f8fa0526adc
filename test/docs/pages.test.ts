// Every page (README.md, docs/*.md, examples/*.md) as a reader goes through it, from the packed
// tarball installed in a fresh project (test/package/consumer.ts): every TypeScript block, and every
// example of examples/, compiled in strict TypeScript as an ES module and as CommonJS
// (programs.ts); then each page's blocks not marked not-run, shell and TypeScript, run in page order
// in one reader's folder that starts empty (workspace.ts says what a page finds), against the
// installed package's emulator. A TypeScript block runs as an ES module, then as CommonJS.
//
// THE RULES (for whoever writes docs; blocks.ts has the marks, programs.ts how TypeScript compiles):
// 1. A page makes what it uses: a file a block reads was written by a block above it on the page.
// 2. Every command of a shell block exits 0 as the reader sees it (workspace.ts readerScript: a
//    failed command fails the block even when later ones succeed), within 90 seconds, printing no
//    `cred-auth: warning`. A TypeScript block runs to exit 0 within 90 seconds, with no warning.
// 3. A block marked `<!-- not-run: why -->` (it needs Google, your own client, input, ...) is not
//    run; a TypeScript one still compiles.
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { test } from "node:test";
import { consumerWorkspace, installedPackage, startPackagedEmulator } from "../package/consumer.ts";
import { copyFileSync, readFileSync } from "node:fs";
import { type Block, documentedBlocks, pageNeeds, ROOT, shellScript } from "./blocks.ts";
import {
  asCommonJs,
  blockPrograms,
  compile,
  examplePrograms,
  KINDS,
  type ModuleKind,
  type Program,
  writeProject,
} from "./programs.ts";
import { EMULATOR_ARGS, pool, RUN_CONCURRENCY, readerScript, readerWorkspace, runInGroup } from "./workspace.ts";

const RUN_TIMEOUT_MS = 90_000;

const blocks = documentedBlocks();
const programs = blockPrograms(blocks.filter((b) => b.kind === "typescript"));

/** One thing a reader runs: a shell block, or a TypeScript program as one module kind. */
type Step = { where: string; name: string } & (
  | { kind: "shell"; block: Block }
  | { kind: "program"; program: Program; as: ModuleKind }
);

/** The steps of each page a reader runs, in page order (a program stands where its first block does). */
export function pageSteps(all: readonly Block[], byWhere: ReadonlyMap<string, Program>): Map<string, Step[]> {
  const pages = new Map<string, Step[]>();
  for (const block of all) {
    const where = `${block.file}:${block.line}`;
    const steps = pages.get(block.file) ?? [];
    pages.set(block.file, steps);
    if (block.kind === "shell") {
      if (block.notRun === undefined) steps.push({ kind: "shell", block, where, name: `${where} runs` });
      continue;
    }
    const program = byWhere.get(where);
    if (!program || program.notRun !== undefined) continue;
    for (const as of program.kinds)
      steps.push({
        kind: "program",
        program,
        as,
        where,
        name: `${where} runs (${as === "esm" ? "ES module" : "CommonJS"})`,
      });
  }
  return pages;
}

test("the documented TypeScript blocks are found, and continued blocks join their program", () => {
  assert.ok(programs.length >= 15, `only ${programs.length} TypeScript programs found`);
  const joined = blockPrograms([
    { file: "a.md", line: 1, kind: "typescript", language: "ts", body: ["import x from 'x';"] },
    { file: "a.md", line: 5, kind: "typescript", language: "ts", body: ["x();"], continues: true, notRun: "why" },
    { file: "a.md", line: 9, kind: "typescript", language: "ts", body: ["y();"] },
  ]);
  assert.deepEqual(
    joined.map((p) => [p.where, p.lines.map((l) => l.origin), p.notRun]),
    [
      ["a.md:1", ["a.md:2", "a.md:6"], "why"],
      ["a.md:9", ["a.md:10"], undefined],
    ],
  );
  assert.deepEqual(
    asCommonJs([{ text: "import {" }, { text: "  a," }, { text: '} from "a";' }, { text: "await a();" }]).map(
      (l) => l.text,
    ),
    ["import {", "  a,", '} from "a";', "void (async () => {", "await a();", "})();"],
  );
});

test("a page says what it needs beyond README's install and emulator before its first block", () => {
  const page = (text: string) => pageNeeds("page.md", text);
  assert.deepEqual(page("# P\n\n<!-- page-needs: @google-cloud/bigquery, deployer -->\n\n```sh\nls\n```\n"), [
    "@google-cloud/bigquery",
    "deployer",
  ]);
  assert.deepEqual(page("# P\n\n```sh\nls\n```\n"), []);
  assert.throws(() => page("```ts\nx;\n```\n<!-- page-needs: deployer -->\n"), /before the page's first block/);
});

/** A compiled sample copied into the reader's folder, so its imports resolve there (what the page installed) only. */
function inReaderFolder(compiled: string, dir: string, as: ModuleKind): string {
  const copy = join(dir, `${basename(compiled, ".js")}.${as === "esm" ? "mjs" : "cjs"}`);
  copyFileSync(compiled, copy);
  return copy;
}

// The install, two tsc runs and every page in one test: longer than the suite's 240 s per test under load.
test("each page runs as a reader runs it: blocks in order, in a folder that starts empty", {
  timeout: 900_000,
}, async (t) => {
  const packing = performance.now();
  const consumer = await installedPackage();
  t.diagnostic(`the installed package, packed and found or installed: ${Math.round(performance.now() - packing)} ms`);
  const all = [...programs, ...examplePrograms(consumer)];
  const base = consumerWorkspace(consumer, "ts-blocks-");
  // The two tsc runs at once: each is mostly one core's work (the ES one reads googleapis' types).
  const started = performance.now();
  const compiled = new Map(
    await Promise.all(
      KINDS.map(
        async (kind) => [kind, await compile(consumer, join(base, kind), writeProject(base, kind, all))] as const,
      ),
    ),
  );
  t.diagnostic(
    `tsc, ES modules and CommonJS at once (${all.length} programs): ${Math.round(performance.now() - started)} ms`,
  );

  await t.test("tsc reports nothing outside the samples", () => {
    for (const kind of KINDS) assert.deepEqual(compiled.get(kind)?.get("") ?? [], [], kind);
  });
  for (const program of all) {
    await t.test(`${program.where} compiles`, () => {
      const errors = program.kinds.flatMap((kind) =>
        (compiled.get(kind)?.get(program.id) ?? []).map((e) => `${kind === "esm" ? "ES module" : "CommonJS"}: ${e}`),
      );
      assert.deepEqual(errors, [], `${program.where} does not compile:\n${errors.join("\n")}`);
    });
  }

  const emulating = performance.now();
  // README's emulator, and getting-started.md's that knows deployer@my-project (a page's `deployer` need).
  const [plain, deployer] = await Promise.all([
    startPackagedEmulator(consumer, []),
    startPackagedEmulator(consumer, EMULATOR_ARGS),
  ]);
  t.diagnostic(`the installed emulators started: ${Math.round(performance.now() - emulating)} ms`);
  const pages = pageSteps(blocks, new Map(programs.map((p) => [p.where, p])));
  const results = new Map<string, { code: number | null; output: string }>();
  const running = performance.now();
  const runPage =
    ([page, steps]: readonly [string, readonly Step[]]) =>
    async () => {
      const needs = pageNeeds(page, readFileSync(join(ROOT, page), "utf8"));
      const emulator = needs.includes("deployer") ? deployer : plain;
      const { dir, env } = await readerWorkspace(
        consumer,
        emulator,
        needs.filter((need) => need !== "deployer"),
      );
      for (const step of steps) {
        const [command, args] =
          step.kind === "shell"
            ? ["bash", readerScript(shellScript(step.block))]
            : [process.execPath, [inReaderFolder(join(base, step.as, "out", `${step.program.id}.js`), dir, step.as)]];
        results.set(step.name, await runInGroup(command, args, dir, env, RUN_TIMEOUT_MS));
      }
    };
  // Every reader signs in as the same account with the same client, and revoking a token revokes
  // the whole grant, as at Google (src/emulator/grants.ts): a page that revokes would end the
  // sign-ins of the pages running beside it. Those pages run after the others, one at a time.
  const revokes = (steps: readonly Step[]) =>
    steps.some((step) => step.kind === "shell" && /\bcred-auth revoke\b/.test(shellScript(step.block)));
  await pool([...pages].filter(([, steps]) => !revokes(steps)).map(runPage), RUN_CONCURRENCY);
  await pool([...pages].filter(([, steps]) => revokes(steps)).map(runPage), 1);
  const steps = [...pages.values()].flat();
  const samples = new Set(steps.map((s) => s.where)).size;
  t.diagnostic(
    `${samples} samples (${steps.length} runs) of ${pages.size} pages, ${RUN_CONCURRENCY} pages at a time, then the ${[...pages.values()].filter(revokes).length} that revoke alone: ${Math.round(performance.now() - running)} ms`,
  );
  for (const step of steps) {
    await t.test(step.name, () => {
      const result = results.get(step.name);
      const shown = step.kind === "shell" ? `${shellScript(step.block)}\n` : "";
      assert.equal(result?.code, 0, `${step.where} exited ${result?.code}:\n${shown}--- output ---\n${result?.output}`);
      assert.doesNotMatch(result.output, /cred-auth: warning/, `${step.where} warned`);
    });
  }
});
