// Running notebooks/ headlessly on a real Jupyter kernel (nbclient, through a Python driver)
// while the test answers the emulator's consent page like a browser.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";
import { approveSignIn, startEmulator } from "cred-auth/emulator";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const notebooksDir = join(root, "notebooks");

/** A Python with nbclient and jupyter_client (Debian's python3-nbclient), or undefined. */
export function findJupyterPython(): string | undefined {
  for (const python of ["/usr/bin/python3", "python3"]) {
    const probe = spawnSync(python, ["-c", "import nbclient, nbformat, jupyter_client"], { stdio: "ignore" });
    if (probe.status === 0) return python;
  }
  return undefined;
}

/**
 * The link `npm install` makes in notebooks/ (its package.json depends on "file:.."): tslab's
 * TypeScript and Deno's `nodeModulesDir: "manual"` find the package only in node_modules.
 */
export function linkPackageForNotebooks(): void {
  const link = join(notebooksDir, "node_modules", "cred-auth");
  if (existsSync(link) && realpathSync(link) === realpathSync(root)) return;
  mkdirSync(join(notebooksDir, "node_modules"), { recursive: true });
  if (lstatSync(link, { throwIfNoEntry: false })) rmSync(link, { recursive: true, force: true });
  symlinkSync("../..", link, "dir");
}

/**
 * What `tslab install --prefix` writes, with this Node (22) running tslab's entry: the
 * `#!/usr/bin/env node` of tslab's bin could pick an older node from PATH.
 */
export function writeTslabKernelSpec(jupyterDir: string): void {
  const specDir = join(jupyterDir, "kernels", "tslab");
  mkdirSync(specDir, { recursive: true });
  const tslab = realpathSync(join(root, "node_modules", "tslab", "bin", "tslab"));
  const spec = {
    argv: [process.execPath, tslab, "kernel", "--config-path", "{connection_file}"],
    display_name: "TypeScript",
    language: "typescript",
  };
  writeFileSync(join(specDir, "kernel.json"), JSON.stringify(spec));
}

/** What the tslab tests share: a temporary folder with the kernel spec, and a running emulator. */
export interface TslabFixture {
  work: string;
  jupyterPath: string;
  emulator: Awaited<ReturnType<typeof startEmulator>>;
}

/**
 * Registers the file's before/after hooks that set up a {@link TslabFixture} (none when
 * skipped); its fields are set once `before` ran.
 */
export function tslabFixture(prefix: string, skip: string | false): TslabFixture {
  const fixture = {} as TslabFixture;
  before(async () => {
    if (skip) return;
    fixture.work = mkdtempSync(join(tmpdir(), prefix));
    fixture.jupyterPath = join(fixture.work, "jupyter");
    writeTslabKernelSpec(fixture.jupyterPath);
    linkPackageForNotebooks();
    fixture.emulator = await startEmulator();
  });
  after(async () => {
    await fixture.emulator?.close();
    if (fixture.work) rmSync(fixture.work, { recursive: true, force: true });
  });
  return fixture;
}

/**
 * The environment of a kernel under test: its own HOME, the test's Jupyter path and emulator,
 * ten random loopback ports (never the default 8080-8089 that serial tests hold), no token
 * cache, no metadata server, no browser, the credentials cache's refresh token in its file; `env` on top.
 */
export function kernelEnv(home: string, jupyterPath: string, emulatorHost: string, env: Record<string, string> = {}) {
  const first = 20000 + Math.floor(Math.random() * 4000) * 10;
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    JUPYTER_PATH: jupyterPath,
    JUPYTER_RUNTIME_DIR: join(home, "jupyter-runtime"),
    CRED_AUTH_EMULATOR_HOST: emulatorHost,
    CRED_AUTH_LOOPBACK_PORTS: `${first}-${first + 9}`,
    CRED_AUTH_TOKEN_CACHE: "off",
    METADATA_SERVER_DETECTION: "none",
    BROWSER: "none",
    ...env,
  };
}

export interface Output {
  output_type: string;
  name?: string;
  text?: string | string[];
  ename?: string;
  data?: Record<string, string | string[]>;
}

export interface NotebookRun {
  /** The kernel's HOME. */
  home: string;
  /** Sign-in links the notebook showed, in order, and what the "browser" got. */
  signIns: Array<{ url: string; cell: number; redirectUri: string }>;
  /** Every state the sign-in cards showed while the cells ran, in order. */
  cards: Array<{ status: string; cell: number; completeSignIn: boolean; plain: string; html: string }>;
  ok: boolean;
  error: string | null;
  cells: Array<{ cell_type: string; source: string | string[]; outputs?: Output[]; metadata: { tags?: string[] } }>;
}

export interface RunOptions {
  python: string;
  /** run_notebook.py or a variant with the same events. */
  driver: string;
  /** A file in notebooks/. */
  name: string;
  /** A temporary folder for the kernel's HOME and the executed notebook. */
  work: string;
  /** Where the kernel spec is. */
  jupyterPath: string;
  emulatorHost: string;
  /** Who approves each sign-in. */
  account?: string;
  env?: Record<string, string>;
  /**
   * The browser is on another machine: the loopback redirect is not followed, and its address
   * is pasted where the notebook asks for the code.
   */
  remoteBrowser?: boolean;
}

const UNFINISHED = "the driver ended without a result";

/** Runs one notebook; each sign-in it shows is approved as `account` (pasting the code when asked). */
export async function runNotebook(options: RunOptions): Promise<NotebookRun> {
  const { python, driver, name, work, jupyterPath, emulatorHost, account = "bob@example.com", env = {} } = options;
  const home = mkdtempSync(join(work, "home-"));
  const output = join(work, `executed-${name}`);
  const child = spawn(python, [driver, join(notebooksDir, name), output], {
    cwd: notebooksDir,
    stdio: ["pipe", "pipe", "inherit"],
    env: kernelEnv(home, jupyterPath, emulatorHost, env),
  });
  const closed = new Promise((resolve) => child.once("close", resolve));
  const run: NotebookRun = { home, signIns: [], cards: [], ok: false, error: UNFINISHED, cells: [] };
  try {
    await readEvents(child.stdout!, (code) => child.stdin!.write(`${code}\n`), run, account, options.remoteBrowser);
  } finally {
    child.stdin!.end();
    // A failed approval leaves the cell waiting for the browser: Ctrl+C makes nbclient shut
    // the kernel down (it runs in a session of its own, out of reach of a plain kill).
    if (run.error === UNFINISHED && child.exitCode === null) child.kill("SIGINT");
    await closed;
  }
  if (existsSync(output)) run.cells = JSON.parse(readFileSync(output, "utf8")).cells;
  return run;
}

async function readEvents(
  stdout: NodeJS.ReadableStream,
  paste: (code: string) => void,
  run: NotebookRun,
  account: string,
  remoteBrowser = false,
): Promise<void> {
  for await (const line of createInterface({ input: stdout })) {
    const event = JSON.parse(line) as {
      event: string;
      url?: string;
      cell?: number;
      status?: string;
      completeSignIn?: boolean;
      plain?: string;
      html?: string;
      ok?: boolean;
      error?: string | null;
    };
    if (event.event === "card")
      run.cards.push({
        status: event.status ?? "",
        cell: event.cell ?? -1,
        completeSignIn: event.completeSignIn === true,
        plain: event.plain ?? "",
        html: event.html ?? "",
      });
    if (event.event === "sign-in" && event.url) {
      const redirectUri = new URL(event.url).searchParams.get("redirect_uri") ?? "";
      run.signIns.push({ url: event.url, cell: event.cell ?? -1, redirectUri });
      const page = await approveSignIn(event.url, { account, followRedirect: !remoteBrowser });
      if (remoteBrowser) paste(page.url);
      else if (redirectUri.endsWith("/oauth/code")) {
        assert.ok(page.code, "the code page shows a code");
        paste(page.code);
      }
    }
    if (event.event === "done") {
      run.ok = event.ok === true;
      run.error = event.error ?? null;
    }
  }
}

export const text = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? value.join("") : (value ?? "");
export const codeCells = (run: NotebookRun) => run.cells.filter((cell) => cell.cell_type === "code");
export const htmlOf = (cell: { outputs?: Output[] }) =>
  (cell.outputs ?? []).map((o) => text(o.data?.["text/html"])).join("");
export const statusOf = (html: string) => [...html.matchAll(/data-cred-auth-status="([^"]+)"/g)].map((m) => m[1]);

/** What a cell printed on stdout. */
export const stdoutOf = (cell: { outputs?: Output[] }) =>
  (cell.outputs ?? [])
    .filter((o) => o.output_type === "stream" && o.name === "stdout")
    .map((o) => text(o.text))
    .join("");

/** What a cell printed on stderr (tslab shows it in red under the cell, and it is saved in the notebook). */
export const stderrOf = (cell: { outputs?: Output[] }) =>
  (cell.outputs ?? [])
    .filter((o) => o.output_type === "stream" && o.name === "stderr")
    .map((o) => text(o.text))
    .join("");

/**
 * Runs notebooks on tslab with run_notebook.py in `fixture`; each sign-in a notebook shows is
 * approved as `account` (pasting the code, or with `remoteBrowser` the browser's final address).
 */
export function tslabRunner(
  fixture: TslabFixture,
  python: string | undefined,
  options: { remoteBrowser?: boolean } = {},
) {
  const driver = fileURLToPath(new URL("./run_notebook.py", import.meta.url));
  return (name: string, env: Record<string, string>, account = "bob@example.com"): Promise<NotebookRun> =>
    runNotebook({
      ...options,
      python: python!,
      driver,
      name,
      work: fixture.work,
      jupyterPath: fixture.jupyterPath,
      emulatorHost: fixture.emulator.host,
      account,
      env,
    });
}
