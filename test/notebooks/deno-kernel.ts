// A Deno Jupyter kernel for the tests: where Deno is, its kernel spec under a throwaway HOME,
// and an emulator, set up once per test file (deno.test.ts, deno-next-steps.test.ts).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { startEmulator } from "cred-auth/emulator";
import { findJupyterPython, linkPackageForNotebooks, root } from "./support.ts";

// Deno is not a dev dependency (the registry here serves its binary for Linux x64 only, which
// `npm ci` refuses as an incomplete lock): `npm run setup:deno` (and .ci/run) install it under .tmp/deno.
export const deno = [process.env.DENO_BIN, join(root, ".tmp", "deno", "node_modules", ".bin", "deno"), "deno"].find(
  (candidate) => candidate && spawnSync(candidate, ["--version"], { stdio: "ignore" }).status === 0,
);

export const python = findJupyterPython();
export const missing = !python
  ? "Jupyter (python3-nbclient, python3-jupyter-client) is not installed"
  : !deno
    ? "Deno is not installed (npm run setup:deno)"
    : undefined;
export const skip = missing && !process.env.CI ? missing : false;
if (skip) console.warn(`\n!!! SKIPPING the Deno notebook test: ${skip}. It runs under CI. !!!\n`);

/** What a Deno test file shares: a temporary folder with the kernel spec, and a running emulator. */
export interface DenoFixture {
  work: string;
  jupyterPath: string;
  emulator: Awaited<ReturnType<typeof startEmulator>>;
}

/** Registers the file's before/after hooks that set up a {@link DenoFixture}; its fields are set once `before` ran. */
export function denoFixture(prefix: string): DenoFixture {
  const fixture = {} as DenoFixture;
  before(async () => {
    if (skip) return;
    // Under CI nothing skips: say what is missing and how to install it, not a TypeError further on.
    if (missing)
      assert.fail(
        `${missing}; under CI this test must run, so install it first (.ci/run does; DENO_BIN may name a deno binary)`,
      );
    fixture.work = mkdtempSync(join(tmpdir(), prefix));
    fixture.jupyterPath = installKernelSpec(join(fixture.work, "install-home"));
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
