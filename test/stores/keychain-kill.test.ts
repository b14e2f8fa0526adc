// kill -9 of a process saving into the keychain store, at points spread over the save (30 each for a
// re-save, a first save and a migration out of a whole file), against a real Secret Service (issue 49):
// at every instant the file names an entry that exists (the cache stays usable), and the next save
// leaves one entry, the one the file names, and no secret in the file.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { cache } from "cred-auth";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { readPendingSecrets } from "../../dist/credentials/kinds/user/client.js";
import { withEmulator } from "../support/emulator.ts";
import { isolateHome } from "../support/files.ts";
import { startSecretService } from "../support/secret-service.ts";

const DIST = new URL("../../dist/", import.meta.url).pathname;
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const KILLS = 30;
const emu = await withEmulator();
let skipped: string | undefined;
const service = await startSecretService({ skip: (why) => (skipped = why) });
after(() => service?.stop());

/** Saves a refresh token (argv[1]) to the default cache (STORE: its secret store) once told "go". */
const SAVER = `
const { cache } = require(${JSON.stringify(join(DIST, "index.js"))});
const { userRefreshClientFrom } = require(${JSON.stringify(join(DIST, "credentials/kinds/user/client.js"))});
(async () => {
  const client = await userRefreshClientFrom({ type: "authorized_user", clientId: ${JSON.stringify(DEMO_CLIENT.clientId)},
    clientSecret: ${JSON.stringify(DEMO_CLIENT.clientSecret)}, refreshToken: process.argv[1], tokenUrl: ${JSON.stringify(`${emu.url}/token`)}, scopes: [${JSON.stringify(CLOUD)}] });
  const store = new cache.ReadWriteCredentialsCache(process.env.STORE ? { secretStore: process.env.STORE } : {});
  process.stdout.write("ready\\n");
  await new Promise((r) => process.stdin.once("data", r));
  await store.save(client);
  process.stdout.write("saved\\n");
  process.exit(0);
})();
`;

/** Runs {@link SAVER}; kills it `killAfterMs` after "go" (never, when undefined). Resolves the time it ran. */
async function saveKilled(store: string | undefined, killAfterMs?: number): Promise<number> {
  const child = spawn(process.execPath, ["-e", SAVER, emu.issueRefreshToken({ scopes: [CLOUD] })], {
    env: { ...process.env, ...(store ? { STORE: store } : {}) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  await new Promise((resolve) => child.stdout.once("data", resolve));
  const started = Date.now();
  child.stdin.end("go\n");
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  await new Promise((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  return Date.now() - started;
}

/** The cache file's state: the entry it names (if in the keychain form), whether it holds the refresh token. */
function fileState(path: string): { named?: string; secretInFile: boolean } {
  if (!existsSync(path)) return { secretInFile: false };
  const json = JSON.parse(readFileSync(path, "utf8"));
  return { named: json.cred_auth_keychain?.account, secretInFile: "refresh_token" in json };
}

/** The entries of the default cache (this test's HOME). */
async function accounts(): Promise<string[]> {
  const mine = (await service?.entries()) ?? [];
  return mine
    .map((e) => e.account)
    .filter((a) => a.startsWith(`${cache.READ_WRITE.path}:`))
    .sort();
}

for (const [kind, before] of [
  ["a re-save", "keychain"],
  ["a first save", "none"],
  ["a migration of a whole file", "file"],
] as const)
  test(`kill -9 at ${KILLS} points of ${kind}: the file always names an entry that exists; the next save leaves one, and no secret in the file`, async (t) => {
    if (!service) return t.skip(skipped);
    isolateHome(t);
    Object.assign(process.env, {
      DBUS_SESSION_BUS_ADDRESS: service.address,
      CRED_AUTH_EMULATOR_HOST: emu.host,
      CRED_AUTH_KEYCHAIN_TIMEOUT_MS: "30000",
    });
    t.after(() => {
      for (const name of ["DBUS_SESSION_BUS_ADDRESS", "CRED_AUTH_EMULATOR_HOST", "CRED_AUTH_KEYCHAIN_TIMEOUT_MS"])
        delete process.env[name];
    });
    const path = cache.READ_WRITE.path;
    const prepare = async () => {
      if (before === "none") {
        await cache.READ_WRITE.delete();
        assert.deepEqual(await accounts(), [], "nothing before a first save");
      } else await saveKilled(before);
    };
    await prepare();
    const took = Math.max(await saveKilled(undefined), await saveKilled(undefined));
    const left = { orphan: 0, both: 0 };
    for (let i = 0; i < KILLS; i++) {
      await prepare();
      await saveKilled(undefined, Math.round((took * 1.2 * i) / KILLS));
      const { named, secretInFile } = fileState(path);
      const now = await accounts();
      if (named !== undefined) {
        assert.ok(now.includes(named), `kill ${i}: the file names ${named}, which exists`);
        const loaded = await cache.READ_WRITE.load();
        await readPendingSecrets(loaded!); // the cache is usable: its secrets are read
      } else if (before !== "none") assert.ok(secretInFile, `kill ${i}: a whole file still`);
      left.orphan += now.filter((a) => a !== named).length;
      left.both += secretInFile && now.length > 0 ? 1 : 0;
      await saveKilled(undefined); // the next save
      const after = fileState(path);
      assert.deepEqual(
        await accounts(),
        [after.named],
        `kill ${i}: the next save left one entry, the one its file names`,
      );
      assert.equal(after.secretInFile, false);
    }
    t.diagnostic(
      `${kind}: right after the ${KILLS} kills, ${left.orphan} entries no file named, ${left.both} secrets in both places (each gone at the next save)`,
    );
  });
