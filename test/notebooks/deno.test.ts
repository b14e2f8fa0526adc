// notebooks/05-deno.ipynb, executed headlessly on a real Deno Jupyter kernel (Jupyter's
// nbclient through run_notebook.py) against the emulator, while this test approves the
// sign-in like a browser.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { approveSignIn, startEmulator } from "cred-auth/emulator";

const root = fileURLToPath(new URL("../..", import.meta.url));
const notebooksDir = join(root, "notebooks");
const driver = fileURLToPath(new URL("./run_deno_notebook.py", import.meta.url));
const deno = join(root, "node_modules", ".bin", "deno");

/** A Python with nbclient and jupyter_client (Debian's python3-nbclient), or undefined. */
function findJupyterPython(): string | undefined {
  for (const python of ["/usr/bin/python3", "python3"]) {
    const probe = spawnSync(python, ["-c", "import nbclient, nbformat, jupyter_client"], { stdio: "ignore" });
    if (probe.status === 0) return python;
  }
  return undefined;
}

const python = findJupyterPython();
const denoRuns = spawnSync(deno, ["--version"], { stdio: "ignore" }).status === 0;
const missing = !python ? "Jupyter (python3-nbclient, python3-jupyter-client) is not installed" : !denoRuns ? "Deno (the `deno` dev dependency) does not run" : undefined;
const skip = missing && !process.env.CI ? missing : false;
if (skip) console.warn(`\n!!! SKIPPING the Deno notebook test: ${skip}. It runs under CI. !!!\n`);

let work: string;
let jupyterPath: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;

before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), "cred-auth-deno-notebook-"));
  jupyterPath = installKernelSpec(join(work, "install-home"));
  linkPackageForNotebooks();
  emulator = await startEmulator();
});

after(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * `deno jupyter --install` writes to $HOME/.local/share/jupyter (it ignores
 * JUPYTER_DATA_DIR), so it runs with a throwaway HOME; returns the JUPYTER_PATH to use.
 */
function installKernelSpec(home: string): string {
  const install = spawnSync(deno, ["jupyter", "--install", "--name", "deno", "--force"], {
    env: { PATH: process.env.PATH ?? "", HOME: home, DENO_NO_UPDATE_CHECK: "1" },
    encoding: "utf8",
  });
  assert.equal(install.status, 0, `deno jupyter --install: ${install.stderr}`);
  const jupyterDir = join(home, ".local", "share", "jupyter");
  assert.ok(existsSync(join(jupyterDir, "kernels", "deno", "kernel.json")), "the kernelspec was written under the temporary HOME");
  return jupyterDir;
}

/** The link `npm install` makes in notebooks/ (its package.json depends on "file:.."). */
function linkPackageForNotebooks(): void {
  const link = join(notebooksDir, "node_modules", "cred-auth");
  if (existsSync(link) && realpathSync(link) === realpathSync(root)) return;
  mkdirSync(join(notebooksDir, "node_modules"), { recursive: true });
  if (lstatSync(link, { throwIfNoEntry: false })) rmSync(link, { recursive: true, force: true });
  symlinkSync("../..", link, "dir");
}

interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, string | string[]>;
}

interface NotebookRun {
  home: string;
  signIns: Array<{ url: string; cell: number; redirectUri: string }>;
  cards: Array<{ status: string; cell: number }>;
  ok: boolean;
  error: string | null;
  cells: Array<{ cell_type: string; outputs?: Output[] }>;
}

/** Runs one notebook on the Deno kernel; each sign-in it shows is approved as `account`. */
async function runNotebook(name: string, account = "carol@example.com"): Promise<NotebookRun> {
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
      JUPYTER_PATH: jupyterPath,
      JUPYTER_RUNTIME_DIR: join(home, "jupyter-runtime"),
      DENO_NO_UPDATE_CHECK: "1",
      CRED_AUTH_EMULATOR_HOST: emulator.host,
      CRED_AUTH_LOOPBACK_PORTS: `${first}-${first + 9}`,
      CRED_AUTH_TOKEN_CACHE: "off",
      METADATA_SERVER_DETECTION: "none",
      BROWSER: "none",
    },
  });
  const unfinished = "the driver ended without a result";
  const run: NotebookRun = { home, signIns: [], cards: [], ok: false, error: unfinished, cells: [] };
  const closed = new Promise((resolve) => child.once("close", resolve));
  try {
    await readEvents(child.stdout!, run, account);
  } finally {
    child.stdin!.end();
    // A failed approval leaves the cell waiting for the browser: Ctrl+C makes nbclient shut
    // the kernel down (it runs in a session of its own, out of reach of a plain kill).
    if (run.error === unfinished && child.exitCode === null) child.kill("SIGINT");
    await closed;
  }
  if (existsSync(output)) run.cells = JSON.parse(readFileSync(output, "utf8")).cells;
  return run;
}

async function readEvents(stdout: NodeJS.ReadableStream, run: NotebookRun, account: string): Promise<void> {
  for await (const line of createInterface({ input: stdout })) {
    const event = JSON.parse(line) as { event: string; url?: string; cell?: number; status?: string; ok?: boolean; error?: string | null };
    if (event.event === "card") run.cards.push({ status: event.status ?? "", cell: event.cell ?? -1 });
    if (event.event === "sign-in" && event.url) {
      run.signIns.push({ url: event.url, cell: event.cell ?? -1, redirectUri: new URL(event.url).searchParams.get("redirect_uri") ?? "" });
      await approveSignIn(event.url, { account });
    }
    if (event.event === "done") {
      run.ok = event.ok === true;
      run.error = event.error ?? null;
    }
  }
}

const text = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join("") : (value ?? ""));
/**
 * What the cell displayed as plain text (not the sign-in card), without the colours of Deno's
 * inspect (the notebook displays its values: Deno's kernel may put console output under a later cell).
 */
const shownOf = (cell: { outputs?: Output[] }) =>
  (cell.outputs ?? [])
    .filter((o) => o.output_type === "display_data" && !o.data?.["text/html"])
    .map((o) => text(o.data?.["text/plain"]).replace(/\x1b\[[0-9;]*m/g, ""))
    .join("");
const htmlOf = (cell: { outputs?: Output[] }) => (cell.outputs ?? []).map((o) => text(o.data?.["text/html"])).join("");
const statusOf = (html: string) => [...html.matchAll(/data-cred-auth-status="([^"]+)"/g)].map((m) => m[1]);

test("05-deno: default() signs in through Deno.jupyter.display on a real Deno kernel, then the API answers", { skip, timeout: 90_000 }, async () => {
  const run = await runNotebook("05-deno.ipynb");
  assert.equal(run.ok, true, `the notebook ran to the end: ${run.error}`);
  const [setup, signIn, request] = run.cells.filter((cell) => cell.cell_type === "code");
  assert.ok(setup && signIn && request);
  assert.ok(shownOf(setup).includes(`Using the emulator at http://${emulator.host}`), `the kernel got the test's emulator: ${shownOf(setup)}`);
  assert.equal(run.signIns.length, 1, "one sign-in link was shown while the cell waited");
  assert.match(run.signIns[0]!.redirectUri, /^http:\/\/localhost:\d+\/$/, "loopback flow");
  assert.deepEqual(
    run.cards.map((card) => card.status),
    ["preparing", "waiting", "signed-in"],
    "the card appeared with the link while the cell waited, then said signed in",
  );
  const displays = (signIn.outputs ?? []).filter((o) => text(o.data?.["text/html"]).includes("cred-auth-sign-in"));
  assert.equal(displays.length, 1, "one card, updated in place (display_id), not one per state");
  assert.deepEqual(statusOf(htmlOf(signIn)), ["signed-in"], "the display now says signed in");
  assert.equal(text(displays[0]!.data?.["text/plain"]), "Signed in", "with a plain-text fallback");
  assert.match(htmlOf(signIn), /✔ Signed in/);
  assert.match(shownOf(signIn), /project: \(none: user credentials\)/);
  assert.match(shownOf(request), /^"?200 Hello from the cred-auth emulator!"?$/);
  const cache = join(run.home, ".config", "cred", "cred_credentials.json");
  assert.equal(statSync(cache).mode & 0o777, 0o600, "the credentials were cached, private");
});
