// The notebooks in notebooks/, executed headlessly on a real tslab kernel (Jupyter's nbclient)
// against the emulator, while this test drives the consent page like a browser.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { approveSignIn, startEmulator } from "cred-auth/emulator";

const root = fileURLToPath(new URL("../..", import.meta.url));
const notebooksDir = join(root, "notebooks");
const driver = fileURLToPath(new URL("./run_notebook.py", import.meta.url));

/** A Python with nbclient and jupyter_client (Debian's python3-nbclient), or undefined. */
function findJupyterPython(): string | undefined {
  for (const python of ["/usr/bin/python3", "python3"]) {
    const probe = spawnSync(python, ["-c", "import nbclient, nbformat, jupyter_client"], { stdio: "ignore" });
    if (probe.status === 0) return python;
  }
  return undefined;
}

const python = findJupyterPython();
const skip = python || process.env.CI ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";
if (skip) console.warn(`\n!!! SKIPPING the notebook tests: ${skip}. They run under CI. !!!\n`);

let work: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;

before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), "cred-auth-notebooks-"));
  writeKernelSpec(join(work, "jupyter"));
  linkPackageForNotebooks();
  emulator = await startEmulator();
});

after(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * What `tslab install --prefix` writes, with this Node (22) running tslab's entry: the
 * `#!/usr/bin/env node` of tslab's bin could pick an older node from PATH.
 */
function writeKernelSpec(jupyterDir: string): void {
  const specDir = join(jupyterDir, "kernels", "tslab");
  mkdirSync(specDir, { recursive: true });
  const tslab = realpathSync(join(root, "node_modules", "tslab", "bin", "tslab"));
  const spec = { argv: [process.execPath, tslab, "kernel", "--config-path", "{connection_file}"], display_name: "TypeScript", language: "typescript" };
  writeFileSync(join(specDir, "kernel.json"), JSON.stringify(spec));
}

/**
 * tslab type-checks cells with TypeScript 5.0's node10 resolution, which finds packages only
 * in node_modules: notebooks/package.json depends on "file:..", and this is the link
 * `npm install` makes there.
 */
function linkPackageForNotebooks(): void {
  const link = join(notebooksDir, "node_modules", "cred-auth");
  if (existsSync(link) && realpathSync(link) === realpathSync(root)) return;
  mkdirSync(join(notebooksDir, "node_modules"), { recursive: true });
  if (lstatSync(link, { throwIfNoEntry: false })) rmSync(link, { recursive: true, force: true });
  symlinkSync("../..", link, "dir");
}

interface NotebookRun {
  /** The kernel's HOME. */
  home: string;
  /** Sign-in links the notebook showed, in order, and what the "browser" got. */
  signIns: Array<{ url: string; cell: number; redirectUri: string }>;
  /** Every state the sign-in cards showed while the cells ran, in order. */
  cards: Array<{ status: string; cell: number; completeSignIn: boolean }>;
  ok: boolean;
  error: string | null;
  cells: Array<{ cell_type: string; source: string | string[]; outputs?: Output[]; metadata: { tags?: string[] } }>;
}

interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  ename?: string;
  data?: Record<string, string | string[]>;
}

/** Runs one notebook; each sign-in it shows is approved as `account` (pasting the code when asked). */
async function runNotebook(name: string, env: Record<string, string>, account = "bob@example.com"): Promise<NotebookRun> {
  const home = mkdtempSync(join(work, "home-"));
  const output = join(work, `executed-${name}`);
  const first = 20000 + Math.floor(Math.random() * 4000) * 10;
  const child = spawn(python!, [driver, join(notebooksDir, name), output], {
    cwd: notebooksDir,
    stdio: ["pipe", "pipe", "inherit"],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_CACHE_HOME: join(home, ".cache"),
      JUPYTER_PATH: join(work, "jupyter"),
      JUPYTER_RUNTIME_DIR: join(home, "jupyter-runtime"),
      CRED_AUTH_EMULATOR_HOST: emulator.host,
      CRED_AUTH_LOOPBACK_PORTS: `${first}-${first + 9}`,
      CRED_AUTH_TOKEN_CACHE: "off",
      METADATA_SERVER_DETECTION: "none",
      BROWSER: "none",
      ...env,
    },
  });
  const run: NotebookRun = { home, signIns: [], cards: [], ok: false, error: "the driver ended without a result", cells: [] };
  for await (const line of createInterface({ input: child.stdout! })) {
    const event = JSON.parse(line) as { event: string; url?: string; cell?: number; status?: string; completeSignIn?: boolean; ok?: boolean; error?: string | null };
    if (event.event === "card") run.cards.push({ status: event.status ?? "", cell: event.cell ?? -1, completeSignIn: event.completeSignIn === true });
    if (event.event === "sign-in" && event.url) {
      const redirectUri = new URL(event.url).searchParams.get("redirect_uri") ?? "";
      run.signIns.push({ url: event.url, cell: event.cell ?? -1, redirectUri });
      const page = await approveSignIn(event.url, { account });
      if (redirectUri.endsWith("/oauth/code")) {
        assert.ok(page.code, "the code page shows a code");
        child.stdin!.write(`${page.code}\n`);
      }
    }
    if (event.event === "done") {
      run.ok = event.ok === true;
      run.error = event.error ?? null;
    }
  }
  child.stdin!.end();
  await new Promise((resolve) => child.once("close", resolve));
  if (existsSync(output)) run.cells = JSON.parse(readFileSync(output, "utf8")).cells;
  return run;
}

const text = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join("") : (value ?? ""));
const codeCells = (run: NotebookRun) => run.cells.filter((cell) => cell.cell_type === "code");
const stdoutOf = (cell: { outputs?: Output[] }) => (cell.outputs ?? []).filter((o) => o.output_type === "stream" && o.name === "stdout").map((o) => text(o.text)).join("");
const htmlOf = (cell: { outputs?: Output[] }) => (cell.outputs ?? []).map((o) => text(o.data?.["text/html"])).join("");
const statusOf = (html: string) => [...html.matchAll(/data-cred-auth-status="([^"]+)"/g)].map((m) => m[1]);

function assertRan(run: NotebookRun): void {
  assert.equal(run.ok, true, `the notebook ran to the end: ${run.error}`);
  assert.ok(run.cells.length > 0);
}

test("01-quickstart: default() signs in through the cell's display, then the API answers", { skip }, async () => {
  const run = await runNotebook("01-quickstart.ipynb", { CRED_AUTH_REMOTE: "0" });
  assertRan(run);
  assert.equal(run.signIns.length, 1, "one sign-in link was shown while the cell waited");
  assert.match(run.signIns[0]!.redirectUri, /^http:\/\/localhost:\d+\/$/, "loopback flow");
  const [, signIn, request] = codeCells(run);
  assert.ok(signIn && request);
  assert.deepEqual(
    run.cards.map((card) => card.status),
    ["preparing", "waiting", "signed-in"],
    "the card appeared with the link while the cell waited, then said signed in",
  );
  assert.deepEqual(statusOf(htmlOf(signIn)), ["signed-in"], "the same display now says signed in");
  assert.match(htmlOf(signIn), /✔ Signed in/);
  assert.match(htmlOf(signIn), /See, edit, configure and delete your Google Cloud data/);
  assert.match(stdoutOf(signIn), /project: \(none: user credentials\)/);
  assert.equal(stdoutOf(request).trim(), "200 Hello from the cred-auth emulator!");
  const cache = join(run.home, ".config", "cred", "cred_credentials.json");
  assert.equal(statSync(cache).mode & 0o777, 0o600, "the credentials were cached, private");
});

test("02-cache-choices: NOOP and REAUTH sign in, READ_WRITE reuses the file", { skip }, async () => {
  const run = await runNotebook("02-cache-choices.ipynb", { CRED_AUTH_REMOTE: "0" });
  assertRan(run);
  assert.equal(run.signIns.length, 2, "NOOP and REAUTH signed in; READ_WRITE did not");
  const out = codeCells(run).map(stdoutOf).join("");
  assert.match(out, /NOOP left the cache file untouched: true/);
  assert.match(out, /REAUTH wrote the cache file: true/);
  assert.match(out, /READ_WRITE reused the cached credentials: true/);
  const cards = codeCells(run).map(htmlOf).filter((html) => html.includes("cred-auth-sign-in"));
  assert.equal(cards.length, 2);
  for (const card of cards) assert.deepEqual(statusOf(card), ["signed-in"]);
});

test("03-load-files: saveUserCredentials, loadUserCredentials, loadServiceAccountCredentials", { skip }, async () => {
  const run = await runNotebook("03-load-files.ipynb", { CRED_AUTH_REMOTE: "0" });
  assertRan(run);
  assert.equal(run.signIns.length, 1, "only saving signs in");
  const out = codeCells(run).map(stdoutOf).join("");
  assert.match(out, /user credentials: 200 Hello from the cred-auth emulator!/);
  assert.match(out, /project: \S+/);
  assert.match(out, /service account: 200 Hello from the cred-auth emulator!/);
  const saved = codeCells(run).map(htmlOf).find((html) => html.includes("Saved to"));
  assert.ok(saved, "the card says where the credentials were saved");
  assert.match(saved, /user-credentials\.json/);
});

test("04-two-cell-sign-in: the first cell shows the link and stops, completeSignIn(code) finishes in the same kernel", { skip }, async () => {
  const run = await runNotebook("04-two-cell-sign-in.ipynb", { CRED_AUTH_REMOTE: "1" });
  assertRan(run);
  assert.equal(run.signIns.length, 1);
  assert.match(run.signIns[0]!.redirectUri, /\/oauth\/code$/, "copy-paste flow: the page shows the code");
  const cells = codeCells(run);
  const pending = cells.find((cell) => cell.metadata.tags?.includes("raises-exception"));
  assert.ok(pending);
  const asked = run.cards.find((card) => card.status === "code");
  assert.ok(asked?.completeSignIn, "the first card asked for completeSignIn(code) in a new cell");
  assert.deepEqual(statusOf(htmlOf(pending)), ["signed-in"], "the first cell's card was updated by the second cell");
  assert.match((pending.outputs ?? []).map((o) => text(o.text)).join(""), /SignInPendingError/);
  const last = cells.at(-1)!;
  assert.deepEqual(statusOf(htmlOf(last)), ["signed-in"]);
  assert.equal(stdoutOf(last).trim(), "200 Hello from the cred-auth emulator!");
});
