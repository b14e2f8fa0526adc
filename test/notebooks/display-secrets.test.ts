// No secret under a notebook cell: on real tslab and Deno kernels, the documented cells, their
// result bare (displayed by the kernel: tslab's console.log, Deno's inspect) or assigned, show the
// credentials' summary and none of their secrets: the refresh, access and ID tokens, the GOCSPX-
// client secret, a key's PEM. What a kernel shows is saved in the .ipynb file, which ends up in git.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startEmulator } from "cred-auth/emulator";
import { approving, CellKernel, type Executed, using } from "./cells.ts";
import { findJupyterPython, linkPackageForNotebooks, root, writeTslabKernelSpec } from "./support.ts";

const python = findJupyterPython();
const deno = [process.env.DENO_BIN, join(root, ".tmp", "deno", "node_modules", ".bin", "deno"), "deno"].find(
  (candidate) => candidate && spawnSync(candidate, ["--version"], { stdio: "ignore" }).status === 0,
);
const noJupyter = python ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";
const skipTslab = noJupyter && !process.env.CI ? noJupyter : false;
const noDeno = noJupyter || (deno ? false : "Deno is not installed (npm run setup:deno)");
const skipDeno = noDeno && !process.env.CI ? noDeno : false;
if (skipTslab || skipDeno)
  console.warn(`\n!!! SKIPPING kernel display tests: ${skipTslab || skipDeno}. They run under CI. !!!\n`);

/** A Google-shaped Desktop client: its secret must never be shown. */
const CLIENT = {
  clientId: "123456789012-displaytest.apps.googleusercontent.com",
  clientSecret: "GOCSPX-KernelDisplayTest_0123456789",
};
const SCOPES = '["https://www.googleapis.com/auth/cloud-platform"]';
const IMPORT = 'import * as credAuth from "cred-auth";';
/** What must never be under a cell, whatever the account: the shapes of Google's secrets. */
const SHAPES = [CLIENT.clientSecret, "GOCSPX-", "1//", "ya29.", "PRIVATE KEY", "refresh_token", "_clientSecret"];

let work: string;
let jupyterPath: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;

before(async () => {
  if (skipTslab && skipDeno) return;
  work = mkdtempSync(join(tmpdir(), "cred-auth-display-"));
  jupyterPath = join(work, "jupyter");
  writeTslabKernelSpec(jupyterPath);
  if (!skipDeno) installDenoKernel(join(work, "deno-home"));
  linkPackageForNotebooks();
  emulator = await startEmulator({ clients: [{ ...CLIENT, type: "installed", name: "display test" }] });
});

after(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `deno jupyter --install` under a throwaway HOME (it ignores JUPYTER_DATA_DIR), beside tslab's spec. */
function installDenoKernel(home: string): void {
  const install = spawnSync(deno!, ["jupyter", "--install", "--name", "deno", "--force"], {
    env: { PATH: process.env.PATH ?? "", HOME: home, DENO_NO_UPDATE_CHECK: "1" },
    encoding: "utf8",
  });
  assert.equal(install.status, 0, `deno jupyter --install: ${install.stderr}`);
  const spec = join(home, ".local", "share", "jupyter", "kernels", "deno");
  const target = join(jupyterPath, "kernels", "deno");
  spawnSync("cp", ["-r", spec, target]);
  assert.ok(existsSync(join(target, "kernel.json")));
}

function kernel(name: "tslab" | "deno", env: Record<string, string>): CellKernel {
  return new CellKernel({
    python: python!,
    kernel: name,
    work,
    jupyterPath,
    emulatorHost: emulator.host,
    env: {
      CRED_AUTH_CLIENT_ID: CLIENT.clientId,
      CRED_AUTH_CLIENT_SECRET: CLIENT.clientSecret,
      DENO_NO_UPDATE_CHECK: "1",
      ...env,
    },
  });
}

/** Everything a cell put under itself: streams, displays, the result, errors. */
const shown = (cell: Executed): string =>
  [cell.stdout, cell.stderr, ...cell.plain, cell.error ?? "", ...cell.traceback].join("\n");

/** The cached sign-in's secrets, read from the kernel's cache file. */
function cachedSecrets(home: string): string[] {
  const file = join(home, ".config", "cred", "cred_credentials.json");
  const json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  return [json.refresh_token, json.client_secret, json.id_token].filter((s): s is string => typeof s === "string");
}

function assertNoSecret(cell: Executed, secrets: readonly string[], what: string): void {
  assert.equal(cell.status, "ok", `${what}: ${cell.error} ${cell.stderr}`);
  const text = shown(cell);
  for (const secret of [...SHAPES, ...secrets])
    assert.ok(!text.includes(secret), `${what} shows ${secret.slice(0, 10)}...:\n${text}`);
}

/** The bare cell's value as the kernel displayed it: a summary naming the type. */
function assertSummary(cell: Executed, what: string): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Deno colours its display
  const plain = shown(cell).replace(/\u001b\[[0-9;]*m/g, "");
  assert.match(plain, /(UserRefreshClient|JWT) \{[^}]*type: ['"](authorized_user|service_account)['"]/, what);
}

for (const name of ["tslab", "deno"] as const) {
  const skip = name === "tslab" ? skipTslab : skipDeno;

  test(`${name}: a bare \`await credAuth.default(scopes);\`, signing in and then from the cache, and a key's client show no secret`, {
    skip,
    timeout: 120_000,
  }, async () => {
    await using(kernel(name, { CRED_AUTH_REMOTE: "0" }), async (k) => {
      await k.run(IMPORT);
      const signIn = await k.run(`await credAuth.default(${SCOPES});`, {
        onEvent: approving({ account: "bob@example.com" }),
      });
      const secrets = cachedSecrets(k.home);
      assertNoSecret(signIn, secrets, "the sign-in cell");
      assertSummary(signIn, "the sign-in cell's value");
      const cached = await k.run(`await credAuth.default(${SCOPES});`);
      assertNoSecret(cached, secrets, "the cached cell");
      assertSummary(cached, "the cached cell's value");
      assert.match(shown(cached), /bob@example\.com/, "the summary names the account");
      const tokenShown = await k.run(
        `const [c] = await credAuth.default(${SCOPES}); const { token } = await c.getAccessToken(); c;`,
      );
      assertNoSecret(tokenShown, secrets, "credentials holding an access token");
      const keyPath = join(k.home, "key.json");
      writeFileSync(keyPath, JSON.stringify(emulator.createServiceAccountKey()), { mode: 0o600 });
      const key = await k.run(`await credAuth.loadServiceAccountCredentials(${JSON.stringify(keyPath)}, ${SCOPES});`);
      assertNoSecret(key, [], "a service account key's client");
      assertSummary(key, "the key's value");
    });
  });

  for (const form of ["bare", "assigned"] as const) {
    test(`${name}: the two-cell sign-in, its completeSignIn cell ${form}, shows no secret`, {
      skip,
      timeout: 120_000,
    }, async () => {
      await using(kernel(name, { CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" }), async (k) => {
        await k.run(IMPORT);
        let address: string | undefined;
        const remoteBrowser = approving(
          { account: "carol@example.com", followRedirect: false },
          (page) => (address = page.url),
        );
        const first = await k.run(`const [credentials] = await credAuth.default(${SCOPES});`, {
          onEvent: remoteBrowser,
        });
        assertNoSecret(first, [], "the first cell");
        assert.ok(address, "the browser ended on the loopback address");
        const waiting = await k.run("credentials;");
        assertNoSecret(waiting, [], "the pending credentials, shown before their sign-in finished");
        assertSummary(waiting, "the pending credentials");
        const call = `await credAuth.completeSignIn(${JSON.stringify(address)});`;
        const second = await k.run(form === "bare" ? call : `const done = ${call}`);
        const secrets = cachedSecrets(k.home);
        assertNoSecret(second, secrets, "the completeSignIn cell");
        if (form === "bare") assertSummary(second, "completeSignIn's value");
        const pending = await k.run("credentials;");
        assertNoSecret(pending, secrets, "the first cell's credentials, now signed in");
        assertSummary(pending, "the first cell's credentials");
      });
    });
  }
}
