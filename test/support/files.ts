// Shared by the foundation tests: temp dirs with cleanup, an isolated HOME, test keys.
import type { ChildProcess } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import type { ServiceAccountKeyFile } from "../../dist/credentials/kinds/key/file.js";
import type { AuthorizedUserFile } from "../../dist/credentials/kinds/user/file.js";

/** A fresh temp dir, removed when the test ends. */
export function tempDir(t: TestContext, prefix = "cred-auth-foundation-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Points HOME (and APPDATA/XDG dirs) at a fresh temp dir for this test; restores them after. */
export function isolateHome(t: TestContext): string {
  const home = tempDir(t, "cred-auth-home-");
  const saved = { HOME: process.env.HOME, APPDATA: process.env.APPDATA, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = home;
  process.env.APPDATA = join(home, "AppData");
  process.env.XDG_CONFIG_HOME = join(home, ".xdg-config");
  t.after(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  return home;
}

let cachedKey: string | undefined;

/** A PKCS#8 PEM RSA private key, generated once per process. */
export function testPrivateKey(): string {
  cachedKey ??= generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();
  return cachedKey;
}

/** A minimal valid authorized_user object (secrets are obviously fake). */
export function userFileFields(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "authorized_user",
    client_id: "client-123.apps.example",
    client_secret: "client-secret-SHOULD-NOT-LEAK",
    refresh_token: "refresh-token-SHOULD-NOT-LEAK",
    ...extra,
  };
}

/** `userFileFields(extra)` as cred-auth's model holds it once parsed (camelCase; credentials/kinds/user/file.ts). */
export function userModel(extra: Record<string, unknown> = {}): AuthorizedUserFile {
  return asModel(userFileFields(extra)) as unknown as AuthorizedUserFile;
}

/** `keyFileFields(extra)` as cred-auth's model holds it once parsed. */
export function keyModel(extra: Record<string, unknown> = {}): ServiceAccountKeyFile {
  return asModel(keyFileFields(extra)) as unknown as ServiceAccountKeyFile;
}

/** The keys of a credentials file on disk in cred-auth's camelCase model. */
export function asModel(json: Record<string, unknown>): Record<string, unknown> {
  const named = (key: string) => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return Object.fromEntries(
    Object.entries(json).map(([key, value]) => [key === "token_uri" ? "tokenUrl" : named(key), value]),
  );
}

/** A minimal valid service_account object. */
export function keyFileFields(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "service_account",
    project_id: "proj-1",
    private_key_id: "kid-1",
    private_key: testPrivateKey(),
    client_email: "robot@proj-1.iam.gserviceaccount.com",
    client_id: "1234567890",
    token_uri: "https://oauth2.googleapis.com/token",
    ...extra,
  };
}

/** Secrets that must never appear in an error message. */
export const SECRETS = ["client-secret-SHOULD-NOT-LEAK", "refresh-token-SHOULD-NOT-LEAK", "PRIVATE KEY", "MII"];

export function assertNoSecrets(text: string): void {
  for (const secret of SECRETS) {
    if (text.includes(secret)) throw new Error(`message leaks a secret (${secret.slice(0, 8)}...): ${text}`);
  }
}

/** Resolves when `child` first writes to stdout; rejects if it exits first (e.g. it crashed). */
export function firstOutput(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`child exited before it was ready (code ${code}, signal ${signal})`));
    child.once("exit", onExit);
    child.stdout?.once("data", () => {
      child.off("exit", onExit);
      resolve();
    });
  });
}
