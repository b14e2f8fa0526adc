// The fenced code blocks of the shipped Markdown pages (README.md, docs/*.md, examples/*.md), as
// pages.test.ts runs them.
//
// THE RULES (for whoever writes docs):
// 1. A fence's language says what the block is:
//    - `sh`, `bash`, `shell`, `console`: commands, run by pages.test.ts (shell-blocks.test.ts has the rules);
//    - `ts`, `typescript`: TypeScript, compiled and run by pages.test.ts (programs.ts);
//    - `text`, `json`, `python`, or none: not code of ours (output, synopses with [BRACKETS], files,
//      another language). Any other language fails the test: say which of these it is.
// 2. Just before a shell or TypeScript fence (blank lines between are allowed) may stand marks:
//    - `<!-- not-run: why -->`: the block is not run (it needs a Google account, a clone, a fixed
//      port, ...). A TypeScript block is still compiled. A mark needs a reason.
//    - `<!-- continues -->` (TypeScript only): the block goes on from the TypeScript block before
//      it on the page, in the same program, as notebook cells do; it is compiled and run together
//      with it (not run when any block of the program is marked not-run).
//    A mark with no such block after it fails the test.
// 3. A page runs with what README's Install installs (cred-auth, google-auth-library) and README's
//    emulator (no service account). A page that needs more says so in words before its first block,
//    next to the mark `<!-- page-needs: PACKAGE, ..., deployer -->` (`deployer`: the emulator knows
//    deployer@my-project, getting-started.md's `--service-account` line); the harness gives it exactly that.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const SHELL = new Set(["sh", "bash", "shell", "console"]);
const TYPESCRIPT = new Set(["ts", "typescript"]);
const NOT_OURS = new Set(["", "text", "json", "python"]);
const MARK = /^<!--\s*(not-run|continues)\b:?\s*(.*?)\s*-->$/;
const PAGE_NEEDS = /^<!--\s*page-needs:\s*(.*?)\s*-->$/;

/** One fenced block of a page. */
export interface Block {
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  kind: "shell" | "typescript";
  language: string;
  /** The block's lines, without the fence's indentation. */
  body: string[];
  /** Why the block is not run, when marked. */
  notRun?: string;
  /** A TypeScript block that goes on from the one before it. */
  continues?: boolean;
}

interface Mark {
  name: string;
  reason: string;
  line: number;
}

/** The shell and TypeScript blocks of a Markdown text (rules 1 and 2). Throws on a misplaced mark or an unknown language. */
export function fencedBlocks(file: string, text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  let marks: Mark[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const mark = MARK.exec(line.trim());
    if (mark) {
      marks.push({ name: mark[1] ?? "", reason: mark[2] ?? "", line: i + 1 });
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (!fence) {
      if (line.trim() !== "" && marks.length > 0)
        throw new Error(`${file}:${marks[0]?.line}: a mark must come just before a shell or TypeScript block`);
      continue;
    }
    const indent = fence[1]?.length ?? 0;
    const close = fence[2] ?? "```";
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j] ?? "").trim().startsWith(close)) body.push((lines[j++] ?? "").slice(indent));
    const language = (fence[3] ?? "").toLowerCase();
    const kind = SHELL.has(language) ? "shell" : TYPESCRIPT.has(language) ? "typescript" : undefined;
    if (!kind && !NOT_OURS.has(language))
      throw new Error(`${file}:${i + 1}: a block of language "${language}": use sh, ts, text, json or python`);
    if (!kind && marks.length > 0)
      throw new Error(`${file}:${marks[0]?.line}: a mark must come just before a shell or TypeScript block`);
    if (kind) blocks.push(withMarks({ file, line: i + 1, kind, language, body }, marks));
    marks = [];
    i = j;
  }
  if (marks.length > 0) throw new Error(`${file}:${marks[0]?.line}: a mark with no block after it`);
  return blocks;
}

function withMarks(block: Block, marks: readonly Mark[]): Block {
  for (const mark of marks) {
    if (mark.name === "not-run") block.notRun = mark.reason;
    else if (block.kind !== "typescript")
      throw new Error(`${block.file}:${mark.line}: only a TypeScript block continues`);
    else block.continues = true;
  }
  return block;
}

/** The page for contributors: in the repository, not in the package (package.json "files"). */
export const CONTRIBUTOR_PAGE = "docs/architecture.md";

/** The pages whose blocks the tests run: the README and every page of docs/ and examples/ that ships. */
export function shippedPages(): string[] {
  const pages = (dir: string): string[] =>
    readdirSync(join(ROOT, dir))
      .filter((n) => n.endsWith(".md") && `${dir}/${n}` !== CONTRIBUTOR_PAGE)
      .sort()
      .map((n) => `${dir}/${n}`);
  return ["README.md", ...pages("docs"), ...pages("examples")];
}

/** What a page needs beyond README's install and emulator (rule 3); throws when it says so after its first block. */
export function pageNeeds(file: string, text: string): string[] {
  const lines = text.split("\n");
  const at = lines.findIndex((line) => PAGE_NEEDS.test(line.trim()));
  if (at < 0) return [];
  const first = lines.findIndex((line) => /^\s*(`{3,}|~{3,})\s*(sh|bash|shell|console|ts|typescript)\b/i.test(line));
  if (first >= 0 && first < at)
    throw new Error(`${file}:${at + 1}: page-needs must come before the page's first block`);
  const needs = PAGE_NEEDS.exec(lines[at]?.trim() ?? "")?.[1] ?? "";
  return needs
    .split(",")
    .map((need) => need.trim())
    .filter(Boolean);
}

/** Every block of the shipped pages. */
export function documentedBlocks(): Block[] {
  return shippedPages().flatMap((file) => fencedBlocks(file, readFileSync(join(ROOT, file), "utf8")));
}

/** A shell block's script: `console` blocks keep only the lines typed after `$ `. */
export function shellScript(block: Block): string {
  if (block.language !== "console") return block.body.join("\n");
  return block.body
    .filter((l) => l.trimStart().startsWith("$ "))
    .map((l) => l.trimStart().slice(2))
    .join("\n");
}
