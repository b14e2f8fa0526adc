// A remote tslab kernel with a Desktop client (no code page): the first cell stops with
// SignInPendingError, the browser "on another machine" cannot reach the kernel's loopback
// receiver, and its final address pasted into completeSignIn(address) signs in.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startEmulator } from "cred-auth/emulator";
import {
  codeCells,
  findJupyterPython,
  linkPackageForNotebooks,
  type NotebookRun,
  type Output,
  root,
  runNotebook as runOn,
  text,
} from "./support.ts";

const driver = fileURLToPath(new URL("./run_notebook.py", import.meta.url));

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
  const spec = {
    argv: [process.execPath, tslab, "kernel", "--config-path", "{connection_file}"],
    display_name: "TypeScript",
    language: "typescript",
  };
  writeFileSync(join(specDir, "kernel.json"), JSON.stringify(spec));
}

/** Runs one notebook on tslab; each sign-in is approved as `account` by a browser on another machine. */
function runNotebook(name: string, env: Record<string, string>, account = "bob@example.com"): Promise<NotebookRun> {
  return runOn({
    remoteBrowser: true,
    python: python!,
    driver,
    name,
    work,
    jupyterPath: join(work, "jupyter"),
    emulatorHost: emulator.host,
    account,
    env,
  });
}

const stdoutOf = (cell: { outputs?: Output[] }) =>
  (cell.outputs ?? [])
    .filter((o) => o.output_type === "stream" && o.name === "stdout")
    .map((o) => text(o.text))
    .join("");

test("06-remote-desktop-client: the browser's final address pasted into completeSignIn signs in on tslab", {
  skip,
}, async () => {
  const run = await runNotebook("06-remote-desktop-client.ipynb", {
    CRED_AUTH_REMOTE: "1",
    CRED_AUTH_EMULATOR_CODE_PAGE: "off",
  });
  assert.equal(run.ok, true, `the notebook ran to the end: ${run.error}`);
  assert.equal(run.signIns.length, 1);
  assert.match(
    run.signIns[0]!.redirectUri,
    /^http:\/\/localhost:\d+\/$/,
    "a loopback redirect, as for a Desktop client",
  );
  const cells = codeCells(run);
  const pending = cells.find((cell) => cell.metadata.tags?.includes("raises-exception"));
  assert.ok(pending);
  const printed = (pending.outputs ?? [])
    .map((o) => `${text(o.text)}${(o as { traceback?: string[] }).traceback?.join("\n") ?? ""}`)
    .join("");
  assert.match(printed, /loopback sign-in with the address pasted back/, "the flow named in one line");
  assert.match(printed, /SignInPendingError/);
  assert.doesNotMatch(printed, /dist\//, "no stack frames into dist/");
  const last = cells.at(-1)!;
  assert.equal(stdoutOf(last).trim(), "200 Hello from the cred-auth emulator!");
});
