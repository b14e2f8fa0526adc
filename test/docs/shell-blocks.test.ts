// The shell blocks of README.md, docs/*.md and examples/*.md: each runs (pages.test.ts runs it, in its
// page's order, as a user who installed the packed tarball would) or says why not.
//
// THE RULES (for whoever writes docs; blocks.ts has the rules every block follows, workspace.ts
// lists what a block finds):
// 1. A shell block (`sh`, `bash`, `shell`, `console`) either runs, or is marked on the line just
//    before its fence with a reason:   <!-- not-run: why (e.g. "talks to Google") -->
// 2. A block runs as one bash script (`console` blocks: only the lines starting with `$ `) in its
//    page's folder, a project that installed cred-auth's tarball, so `npx cred-auth ...` and
//    `cred-auth ...` both work offline. Every command must exit 0 as the reader sees it
//    (workspace.ts readerScript), within 90 seconds, printing no `cred-auth: warning`. Background
//    jobs (`&`) are killed when the block ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Block, documentedBlocks, fencedBlocks, ROOT, shellScript } from "./blocks.ts";
import { EMULATOR_ARGS, readerScript, runInGroup } from "./workspace.ts";

const blocks = documentedBlocks().filter((b) => b.kind === "shell");
const runnable = blocks.filter((b) => b.notRun === undefined);
const where = (b: Block): string => `${b.file}:${b.line}`;

test("the rules: blocks are found, console prompts read, marks belong to the next block", () => {
  const sample = [
    "<!-- not-run: talks to Google -->",
    "",
    "```sh",
    "curl https://example.com",
    "```",
    "```console",
    "$ npx cred-auth --version",
    "0.1.0",
    "```",
    "```",
    "cred-auth [OPTIONS]",
    "```",
    "  ```bash",
    "  echo indented",
    "  ```",
  ].join("\n");
  const found = fencedBlocks("sample.md", sample);
  assert.deepEqual(
    found.map((b) => [b.line, b.language, shellScript(b), b.notRun]),
    [
      [3, "sh", "curl https://example.com", "talks to Google"],
      [6, "console", "npx cred-auth --version", undefined],
      [13, "bash", "echo indented", undefined],
    ],
  );
  assert.throws(() => fencedBlocks("x.md", "<!-- not-run: x -->\ntext\n```sh\nls\n```"), /just before/);
  assert.throws(() => fencedBlocks("x.md", "```sh\nls\n```\n<!-- not-run: x -->\n"), /no block after it/);
  assert.throws(() => fencedBlocks("x.md", "<!-- not-run: x -->\n```json\n{}\n```"), /just before/);
  assert.throws(() => fencedBlocks("x.md", "<!-- continues -->\n```sh\nls\n```"), /only a TypeScript block/);
  assert.throws(() => fencedBlocks("x.md", "```js\nx()\n```"), /language "js"/);
});

test("every shell block in README.md and docs/*.md is run below or marked not-run with a reason", () => {
  assert.ok(blocks.length >= 10, `only ${blocks.length} shell blocks found`);
  const noReason = blocks.filter((b) => b.notRun !== undefined && b.notRun.trim().length < 3);
  assert.deepEqual(noReason.map(where), [], "a not-run mark needs a reason: <!-- not-run: why -->");
  assert.ok(runnable.length >= 5, `only ${runnable.length} blocks run`);
  const empty = runnable.filter((b) => shellScript(b).trim() === "");
  assert.deepEqual(empty.map(where), [], "a block to run holds no command");
});

test("what the blocks find is set up on the pages: the emulator with its service account, CRED_AUTH_EMULATOR_HOST", () => {
  const page = readFileSync(join(ROOT, "docs", "getting-started.md"), "utf8");
  const start = page.split("\n").find((line) => line.includes("npx cred-auth emulator") && line.includes("--port"));
  assert.ok(start, "getting-started.md does not start the emulator");
  const command =
    page
      .slice(page.indexOf(start))
      .split("\n```")[0]
      ?.replace(/\\\n\s*/g, " ") ?? "";
  assert.ok(
    command.includes(EMULATOR_ARGS.join(" ")),
    `getting-started.md's emulator lacks ${EMULATOR_ARGS.join(" ")}`,
  );
  assert.match(command, /^export CRED_AUTH_EMULATOR_HOST=127\.0\.0\.1:9099$/m);
});

test("a block fails as its reader sees it: a failed command fails it, even when a later one succeeds", async () => {
  const run = (script: string) => runInGroup("bash", readerScript(script), "/", { PATH: process.env.PATH }, 10_000);
  assert.equal((await run("true\necho ok")).code, 0);
  const failed = await run("false\necho later");
  assert.equal(failed.code, 1);
  // The harness's line goes to stderr, the block's own to stdout: their order in the output is the pipes' race.
  assert.match(failed.output, /^\(docs harness\) line 1 exited 1$/m);
  assert.match(failed.output, /^later$/m);
  assert.equal((await run("false | cat")).code, 1, "a failed pipeline");
  assert.equal((await run("test -e /nonexistent && echo there")).code, 0, "a test before && is read, not a failure");
});
