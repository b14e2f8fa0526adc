// The TypeScript of the shipped pages as programs (pages.test.ts compiles and runs them): a block,
// or a block with the blocks that `continues` it; and the installed examples, compiled only.
// Each program is compiled as a user would compile it, in a fresh strict TypeScript project that
// installed cred-auth's packed tarball, once as an ES module and once as CommonJS, each kind in one
// `tsc` run.
//
// THE RULES (for whoever writes docs; blocks.ts has the marks):
// 1. A block is a whole program: it imports what it uses and declares every name, so that a reader
//    can paste it into a file. `<!-- continues -->` joins it to the block before it (notebook cells).
// 2. It compiles under `strict`, `noUncheckedIndexedAccess` and `exactOptionalPropertyTypes`, with
//    `verbatimModuleSyntax` as an ES module, and as CommonJS (where its top-level code is wrapped in
//    an async function, as a CommonJS user would, its imports left at the top).
// Examples (examples/*.ts, as installed) compile as ES modules; test/examples/ runs them.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import type { Consumer } from "../package/consumer.ts";
import type { Block } from "./blocks.ts";
import { runInGroup } from "./workspace.ts";

const TSC_TIMEOUT_MS = 300_000;

export type ModuleKind = "esm" | "cjs";
export const KINDS: readonly ModuleKind[] = ["esm", "cjs"];

/** One line of a generated source file and where it came from (`docs/x.md:12`), if anywhere. */
export interface Line {
  text: string;
  origin?: string;
}

/** A program: one block, or a block with the blocks that continue it; or an example. */
export interface Program {
  id: string;
  /** Where it starts (`docs/x.md:12`, `examples/x.ts`). */
  where: string;
  lines: Line[];
  kinds: readonly ModuleKind[];
  /** Why it is not run here, when it is not. */
  notRun?: string;
}

/** The documented blocks as programs: a block marked `continues` joins the program before it. */
export function blockPrograms(blocks: readonly Block[]): Program[] {
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
export function examplePrograms(consumer: Consumer): Program[] {
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
export function asCommonJs(lines: readonly Line[]): Line[] {
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
export function writeProject(base: string, kind: ModuleKind, programs: readonly Program[]): Map<string, Line[]> {
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
export async function compile(
  consumer: Consumer,
  dir: string,
  maps: Map<string, Line[]>,
): Promise<Map<string, string[]>> {
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
