// notebooks/05-deno.ipynb, executed headlessly on a real Deno Jupyter kernel (Jupyter's
// nbclient through run_notebook.py) against the emulator, while this test approves the
// sign-in like a browser.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startEmulator } from "cred-auth/emulator";
import { CellKernel, listening } from "./cells.ts";
import {
  codeCells,
  findJupyterPython,
  htmlOf,
  linkPackageForNotebooks,
  type NotebookRun,
  type Output,
  root,
  runNotebook,
  statusOf,
  text,
} from "./support.ts";

const driver = fileURLToPath(new URL("./run_deno_notebook.py", import.meta.url));
// Deno is not a dev dependency (the registry here serves its binary for Linux x64 only, which
// `npm ci` refuses as an incomplete lock): `npm run setup:deno` (and .ci/run) install it under .tmp/deno.
const deno = [process.env.DENO_BIN, join(root, ".tmp", "deno", "node_modules", ".bin", "deno"), "deno"].find(
  (candidate) => candidate && spawnSync(candidate, ["--version"], { stdio: "ignore" }).status === 0,
);

const python = findJupyterPython();
const missing = !python
  ? "Jupyter (python3-nbclient, python3-jupyter-client) is not installed"
  : !deno
    ? "Deno is not installed (npm run setup:deno)"
    : undefined;
const skip = missing && !process.env.CI ? missing : false;
if (skip) console.warn(`\n!!! SKIPPING the Deno notebook test: ${skip}. It runs under CI. !!!\n`);

let work: string;
let jupyterPath: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;

before(async () => {
  if (skip) return;
  // Under CI nothing skips: say what is missing and how to install it, not a TypeError further on.
  if (missing)
    assert.fail(
      `${missing}; under CI this test must run, so install it first (.ci/run does; DENO_BIN may name a deno binary)`,
    );
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
  const install = spawnSync(deno!, ["jupyter", "--install", "--name", "deno", "--force"], {
    env: { PATH: process.env.PATH ?? "", HOME: home, DENO_NO_UPDATE_CHECK: "1" },
    encoding: "utf8",
  });
  assert.equal(install.status, 0, `deno jupyter --install: ${install.stderr}`);
  const jupyterDir = join(home, ".local", "share", "jupyter");
  assert.ok(
    existsSync(join(jupyterDir, "kernels", "deno", "kernel.json")),
    "the kernelspec was written under the temporary HOME",
  );
  return jupyterDir;
}

/** Runs one notebook on the Deno kernel; each sign-in it shows is approved as carol. */
function runOnDeno(name: string): Promise<NotebookRun> {
  return runNotebook({
    python: python!,
    driver,
    name,
    work,
    jupyterPath,
    emulatorHost: emulator.host,
    account: "carol@example.com",
    env: { DENO_NO_UPDATE_CHECK: "1" },
  });
}

/**
 * What the cell displayed as plain text (not the sign-in card): the notebook displays its values
 * (Deno's kernel may put console output under a later cell).
 */
const shownOf = (cell: { outputs?: Output[] }) =>
  (cell.outputs ?? [])
    .filter((o) => o.output_type === "display_data" && !o.data?.["text/html"])
    .map((o) => text(o.data?.["text/plain"]))
    .join("");

test("05-deno: default() signs in through Deno.jupyter.display on a real Deno kernel, then the API answers", {
  skip,
  timeout: 90_000,
}, async () => {
  const run = await runOnDeno("05-deno.ipynb");
  assert.equal(run.ok, true, `the notebook ran to the end: ${run.error}`);
  const [setup, signIn, request] = codeCells(run);
  assert.ok(setup && signIn && request);
  assert.ok(
    shownOf(setup).includes(`Using the emulator at http://${emulator.host}`),
    `the kernel got the test's emulator: ${shownOf(setup)}`,
  );
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
  assert.match(text(displays[0]!.data?.["text/plain"]), /\nSigned in as carol@example\.com/, "a plain-text fallback");
  assert.match(htmlOf(signIn), /Signed in as carol@example\.com/);
  assert.equal(shownOf(signIn), "project: (none: user credentials)");
  assert.equal(shownOf(request), "200 Hello from the cred-auth emulator!", "plain text: no quotes, no ANSI colours");
  const cache = join(run.home, ".config", "cred", "cred_credentials.json");
  assert.equal(statSync(cache).mode & 0o777, 0o600, "the credentials were cached, private");
});

test("Kernel › Interrupt on Deno's kernel while the sign-in waits: the card says cancelled, the port closes, the kernel lives on", {
  skip,
  timeout: 90_000,
}, async () => {
  const kernel = new CellKernel({
    python: python!,
    kernel: "deno",
    work,
    jupyterPath,
    emulatorHost: emulator.host,
    env: { DENO_NO_UPDATE_CHECK: "1" },
  });
  try {
    await kernel.run('import * as credAuth from "cred-auth";');
    const interrupted = await kernel.run(
      'await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"], { useLocalWebserver: true });',
      { interruptOn: "waiting" },
    );
    const link = interrupted.events.find((event) => event.event === "sign-in")?.url;
    assert.ok(link, "the card showed the link");
    const statuses = interrupted.events.filter((event) => event.event === "card").map((event) => event.status);
    assert.equal(statuses.at(-1), "failed", statuses.join(", "));
    assert.match(interrupted.plain.at(-1) ?? "", /cancelled \(kernel interrupt\)\. Nothing was saved\./);
    const port = Number(new URL(new URL(link).searchParams.get("redirect_uri")!).port);
    assert.equal(await listening(port), false, `the loopback port ${port} is closed`);
    const alive = await kernel.run('await Deno.jupyter.display({ "text/plain": "alive" }, { raw: true });');
    assert.deepEqual(alive.plain, ["alive"], "Deno's kernel did not die of the SIGINT");
    assert.equal(existsSync(join(kernel.home, ".config", "cred", "cred_credentials.json")), false, "nothing saved");
  } finally {
    await kernel.close();
  }
});
