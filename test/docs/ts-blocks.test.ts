// Every TypeScript block of README.md and docs/*.md, and every example of examples/, compiled as a
// user would compile it: in a fresh strict TypeScript project that installed cred-auth's packed
// tarball (test/package/consumer.ts), once as an ES module and once as CommonJS, each kind in one
// `tsc` run; then every block not marked not-run is run with Node, both ways, against the installed
// package's emulator (workspace.ts says what a block finds).
//
// THE RULES (for whoever writes docs; blocks.ts has the marks):
// 1. A block is a whole program: it imports what it uses and declares every name, so that a reader
//    can paste it into a file. `<!-- continues -->` joins it to the block before it (notebook cells).
// 2. It compiles under `strict`, `noUncheckedIndexedAccess` and `exactOptionalPropertyTypes`, with
//    `verbatimModuleSyntax` as an ES module, and as CommonJS (where its top-level code is wrapped in
//    an async function, as a CommonJS user would, its imports left at the top).
// 3. It runs to exit 0 within 90 seconds, printing no `cred-auth: warning`, unless marked
//    `<!-- not-run: why -->` (it needs Google, your own client, input, ...): then it only compiles.
// Examples (examples/*.ts, as installed) compile as ES modules; test/examples/ runs them.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { type Consumer, consumerWorkspace, installedPackage, startPackagedEmulator } from "../package/consumer.ts";
import { type Block, documentedBlocks } from "./blocks.ts";
import { blockWorkspace, EMULATOR_ARGS, pool, RUN_CONCURRENCY, runInGroup } from "./workspace.ts";

const RUN_TIMEOUT_MS = 90_000;
const TSC_TIMEOUT_MS = 300_000;

type ModuleKind = "esm" | "cjs";
const KINDS: readonly ModuleKind[] = ["esm", "cjs"];

/** One line of a generated source file and where it came from (`docs/x.md:12`), if anywhere. */
interface Line {
  text: string;
  origin?: string;
}

/** A program: one block, or a block with the blocks that continue it; or an example. */
interface Program {
  id: string;
  /** Where it starts (`docs/x.md:12`, `examples/x.ts`). */
  where: string;
  lines: Line[];
  kinds: readonly ModuleKind[];
  /** Why it is not run here, when it is not. */
  notRun?: string;
}

/** The documented blocks as programs: a block marked `continues` joins the program before it. */
function blockPrograms(blocks: readonly Block[]): Program[] {
  const programs: Program[] = [];
  for (const block of blocks) {
    const lines = block.body.map((text, i) => ({ text, origin: `${block.file}:${block.line + 1 + i}` }));
    const previous = programs.at(-1);
    if (block.continues) {
      if (!previous?.where.startsWith(`${block.file}:`))
        throw new Error(`${block.file}:${block.line} continues no block`);
      previous.lines.push(...lines);
      if (block.notRun !== undefined) previous.notRun ??= block.notRun;
      continue;
    }
    programs.push({
      id: `${block.file.replace(/\W+/g, "-")}-${block.line}`,
      where: `${block.file}:${block.line}`,
      lines,
      kinds: KINDS,
      ...(block.notRun !== undefined ? { notRun: block.notRun } : {}),
    });
  }
  return programs;
}

/** The installed examples (node_modules/cred-auth/examples/*.ts) as ES-module programs, run elsewhere. */
function examplePrograms(consumer: Consumer): Program[] {
  const dir = join(consumer.packageDir, "examples");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".ts"))
    .sort()
    .map((name) => ({
      id: `examples-${name.replace(/\W+/g, "-")}`,
      where: `examples/${name}`,
      lines: readFileSync(join(dir, name), "utf8")
        .split("\n")
        .map((text, i) => ({ text, origin: `examples/${name}:${i + 1}` })),
      kinds: ["esm"],
      notRun: "an example: test/examples/ runs it from the installed package",
    }));
}

/**
 * The program as CommonJS source: its imports first, then the rest inside an async function (a
 * CommonJS module has no top-level await), as a CommonJS user would write it.
 */
function asCommonJs(lines: readonly Line[]): Line[] {
  const source = ts.createSourceFile("x.ts", lines.map((l) => l.text).join("\n"), ts.ScriptTarget.ES2022, true);
  const isImport = new Set<number>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isImportEqualsDeclaration(statement)) continue;
    const first = source.getLineAndCharacterOfPosition(statement.getStart()).line;
    const last = source.getLineAndCharacterOfPosition(statement.getEnd()).line;
    for (let line = first; line <= last; line++) isImport.add(line);
  }
  return [
    ...lines.filter((_, i) => isImport.has(i)),
    { text: "void (async () => {" },
    ...lines.filter((_, i) => !isImport.has(i)),
    { text: "})();" },
  ];
}

const STRICT = {
  target: "es2022",
  module: "nodenext",
  moduleResolution: "nodenext",
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  types: ["node"],
  rootDir: "src",
  outDir: "out",
};

/** A project of one module kind holding every program of that kind; returns its directory and line maps. */
function writeProject(base: string, kind: ModuleKind, programs: readonly Program[]): Map<string, Line[]> {
  const dir = join(base, kind);
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: kind === "esm" ? "module" : "commonjs" }));
  const compilerOptions = kind === "esm" ? { ...STRICT, verbatimModuleSyntax: true } : STRICT;
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["src"] }, null, 2));
  const maps = new Map<string, Line[]>();
  for (const program of programs.filter((p) => p.kinds.includes(kind))) {
    const lines = kind === "esm" ? program.lines : asCommonJs(program.lines);
    writeFileSync(join(dir, "src", `${program.id}.ts`), `${lines.map((l) => l.text).join("\n")}\n`);
    maps.set(program.id, lines);
  }
  return maps;
}

/** tsc's diagnostics by program id, each said at its Markdown line; plus those of no program (id ""). */
async function compile(consumer: Consumer, dir: string, maps: Map<string, Line[]>): Promise<Map<string, string[]>> {
  const tsc = join(consumer.dir, "node_modules", "typescript", "bin", "tsc");
  const { output } = await runInGroup(process.execPath, [tsc, "-p", ".", "--pretty", "false"], dir, {}, TSC_TIMEOUT_MS);
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of output.split("\n")) {
    const match = /^src\/([\w-]+)\.ts\((\d+),(\d+)\): (error .*)$/.exec(line);
    if (!match) {
      if (current && line.startsWith(" ")) current.push(line);
      else if (line.trim()) found.set("", [...(found.get("") ?? []), line]);
      continue;
    }
    const [, id = "", row = "0", , message = ""] = match;
    const origin = maps.get(id)?.[Number(row) - 1]?.origin ?? "the harness's wrapper";
    current = found.get(id) ?? [];
    current.push(`${origin}: ${message}`);
    found.set(id, current);
  }
  return found;
}

const programs = blockPrograms(documentedBlocks().filter((b) => b.kind === "typescript"));

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

test("every TypeScript block compiles (ESM and CommonJS) and runs from the installed package", async (t) => {
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
  const emulator = await startPackagedEmulator(consumer, EMULATOR_ARGS);
  t.diagnostic(`the installed emulator started: ${Math.round(performance.now() - emulating)} ms`);
  const runs = all
    .filter((p) => p.notRun === undefined)
    .flatMap((program) => program.kinds.map((kind) => ({ program, kind })));
  const results = new Map<string, { code: number | null; output: string }>();
  const running = performance.now();
  await pool(
    runs.map(({ program, kind }) => async () => {
      const { dir, env } = await blockWorkspace(consumer, emulator);
      const script = join(base, kind, "out", `${program.id}.js`);
      results.set(`${program.id} ${kind}`, await runInGroup(process.execPath, [script], dir, env, RUN_TIMEOUT_MS));
    }),
    RUN_CONCURRENCY,
  );
  t.diagnostic(`${runs.length} runs, ${RUN_CONCURRENCY} at a time: ${Math.round(performance.now() - running)} ms`);
  for (const { program, kind } of runs) {
    await t.test(`${program.where} runs (${kind === "esm" ? "ES module" : "CommonJS"})`, () => {
      const result = results.get(`${program.id} ${kind}`);
      assert.equal(result?.code, 0, `${program.where} exited ${result?.code}:\n${result?.output}`);
      assert.doesNotMatch(result.output, /cred-auth: warning/, `${program.where} warned`);
    });
  }
});
