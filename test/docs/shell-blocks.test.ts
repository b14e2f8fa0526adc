// Every shell block of README.md and docs/*.md runs here, against the emulator, or says why not.
//
// THE RULES (for whoever writes docs):
// 1. A shell block is a fenced block whose language is `sh`, `bash`, `shell` or `console`. Blocks
//    without a language (or `text`, `ts`, `json`, ...) are not shell blocks: use them for synopses
//    with [BRACKETS], output, and anything else that is not a command to paste.
// 2. Each shell block either runs, or is marked on the line just before its fence (blank lines
//    between are allowed) with a reason:   <!-- not-run: why (e.g. "talks to Google") -->
//    The test fails on a block that is neither run successfully nor marked, and on a mark with no
//    reason or with no block after it.
// 3. A block runs as one `bash -e -o pipefail` script (`console` blocks: only the lines starting
//    with `$ `), in a fresh temp directory that is also a project with cred-auth installed, so
//    `npx cred-auth ...` and `cred-auth ...` both work offline. It must exit 0 within 90 seconds.
//    Background jobs (`&`) are killed when the block ends.
// 4. What a block finds:
//    - CRED_AUTH_EMULATOR_HOST set to a running emulator (every Google endpoint goes there), and
//      a browser (BROWSER) that signs in as alice@example.com and presses Allow, so `login` works;
//      the machine counts as local (CRED_AUTH_REMOTE=0), the loopback ports are free ones.
//    - In the directory: `credentials.json` and `creds.json` (authorized_user files the emulator
//      accepts) and `key.json` (a service-account key); in HOME: `client_secret.json` (the
//      emulator's demo client, so `config set client-secret-file ~/client_secret.json` works).
//    - A HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME of its own, and the tools of this machine
//      (bash, curl, jq, node). No network beyond loopback is needed or allowed for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { serviceAccountFile, userFile, type Sandbox } from "../cli/helpers.ts";
import { freePortRange, rangeEnv } from "../oauth/helpers.ts";
import { withEmulator } from "../support/emulator.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BROWSER_SCRIPT = fileURLToPath(new URL("./sign-in-browser.mjs", import.meta.url));
const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "console"]);
const NOT_RUN = /^<!--\s*not-run:\s*(.*?)\s*-->$/;
const BLOCK_TIMEOUT_MS = 90_000;

/** One fenced shell block: where it is, its script, and its not-run reason when marked. */
export interface ShellBlock {
  file: string;
  line: number;
  language: string;
  script: string;
  notRun?: string;
}

/** The shell blocks of a Markdown text (rules 1 and 2). Throws on a mark that has no block after it. */
export function shellBlocks(file: string, text: string): ShellBlock[] {
  const lines = text.split("\n");
  const blocks: ShellBlock[] = [];
  let pendingMark: { reason: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const mark = NOT_RUN.exec(line.trim());
    if (mark) {
      pendingMark = { reason: mark[1] ?? "", line: i + 1 };
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (!fence) {
      if (line.trim() !== "" && pendingMark)
        throw new Error(`${file}:${pendingMark.line}: a not-run mark must come just before a shell block`);
      continue;
    }
    const close = fence[2] ?? "```";
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j] ?? "").trim().startsWith(close)) body.push(lines[j++] ?? "");
    const language = (fence[3] ?? "").toLowerCase();
    if (SHELL_LANGUAGES.has(language)) {
      const script =
        language === "console"
          ? body
              .filter((l) => l.trimStart().startsWith("$ "))
              .map((l) => l.trimStart().slice(2))
              .join("\n")
          : body.join("\n");
      blocks.push({ file, line: i + 1, language, script, ...(pendingMark ? { notRun: pendingMark.reason } : {}) });
    } else if (pendingMark) {
      throw new Error(`${file}:${pendingMark.line}: a not-run mark must come just before a shell block`);
    }
    pendingMark = undefined;
    i = j;
  }
  if (pendingMark) throw new Error(`${file}:${pendingMark.line}: a not-run mark with no block after it`);
  return blocks;
}

function documentedBlocks(): ShellBlock[] {
  const files = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((n) => n.endsWith(".md"))
      .sort()
      .map((n) => `docs/${n}`),
  ];
  return files.flatMap((file) => shellBlocks(file, readFileSync(join(ROOT, file), "utf8")));
}

const blocks = documentedBlocks();
const runnable = blocks.filter((b) => b.notRun === undefined);

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
  ].join("\n");
  const found = shellBlocks("sample.md", sample);
  assert.deepEqual(
    found.map((b) => [b.line, b.language, b.script, b.notRun]),
    [
      [3, "sh", "curl https://example.com", "talks to Google"],
      [6, "console", "npx cred-auth --version", undefined],
    ],
  );
  assert.throws(() => shellBlocks("x.md", "<!-- not-run: x -->\ntext\n```sh\nls\n```"), /just before a shell block/);
  assert.throws(() => shellBlocks("x.md", "```sh\nls\n```\n<!-- not-run: x -->\n"), /no block after it/);
});

test("every shell block in README.md and docs/*.md is run below or marked not-run with a reason", () => {
  assert.ok(blocks.length >= 10, `only ${blocks.length} shell blocks found`);
  const noReason = blocks.filter((b) => b.notRun !== undefined && b.notRun.trim().length < 3);
  assert.deepEqual(
    noReason.map((b) => `${b.file}:${b.line}`),
    [],
    "a not-run mark needs a reason: <!-- not-run: why -->",
  );
  assert.ok(runnable.length >= 5, `only ${runnable.length} blocks run`);
  const empty = runnable.filter((b) => b.script.trim() === "");
  assert.deepEqual(
    empty.map((b) => `${b.file}:${b.line}`),
    [],
    "a block to run holds no command",
  );
});

/** A temp project with cred-auth installed (links to this checkout), the fixtures of rule 4, and its env. */
async function workspace(
  emulatorHost: string,
  emulator: Parameters<typeof userFile>[0],
): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = mkdtempSync(join(tmpdir(), "cred-auth-doc-block-"));
  test.after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, "home");
  const work = join(dir, "project");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(join(work, "node_modules", ".bin"), { recursive: true });
  writeFileSync(join(work, "package.json"), `{ "name": "docs-block", "version": "1.0.0", "private": true }\n`);
  symlinkSync(ROOT, join(work, "node_modules", "cred-auth"), "dir");
  symlinkSync(join(ROOT, "dist", "cli.js"), join(work, "node_modules", ".bin", "cred-auth"));
  const box: Sandbox = { dir: work, tokenCache: join(dir, "token-cache"), env: {} };
  await userFile(emulator, box, "credentials.json");
  await userFile(emulator, box, "creds.json");
  serviceAccountFile(emulator, box, "key.json");
  writeFileSync(
    join(home, "client_secret.json"),
    JSON.stringify({ installed: { client_id: DEMO_CLIENT.clientId, client_secret: DEMO_CLIENT.clientSecret } }),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: [join(work, "node_modules", ".bin"), dirname(process.execPath), process.env.PATH].join(delimiter),
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CRED_AUTH_TOKEN_CACHE: box.tokenCache,
    CRED_AUTH_EMULATOR_HOST: emulatorHost,
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)),
    CRED_AUTH_REMOTE: "0",
    BROWSER: `${process.execPath} ${BROWSER_SCRIPT}`,
    NO_PROXY: "127.0.0.1,localhost",
    npm_config_update_notifier: "false",
    npm_config_offline: "true",
    LANG: "C.UTF-8",
  };
  return { dir: work, env };
}

/** Runs one block as a bash script in its own process group (rule 3); resolves its exit and output. */
function runBlock(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script], {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const killGroup = (): void => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(killGroup, BLOCK_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      killGroup(); // background jobs of the block
      resolve({ code, output });
    });
  });
}

test("each shell block meant to run runs against the emulator and exits 0", async (t) => {
  const emulator = await withEmulator();
  for (const block of runnable) {
    await t.test(`${block.file}:${block.line}`, async () => {
      const { dir, env } = await workspace(emulator.host, emulator);
      const { code, output } = await runBlock(block.script, dir, env);
      assert.equal(code, 0, `${block.file}:${block.line} exited ${code}:\n${block.script}\n--- output ---\n${output}`);
      assert.doesNotMatch(output, /cred-auth: warning/, `${relative(ROOT, block.file)}:${block.line} warned`);
    });
  }
});
