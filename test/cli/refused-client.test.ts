// print-token and status with credentials whose OAuth client was deleted or disabled, as real
// processes against the emulator: the client's own code, the token server's words and the next
// step (`cred-auth config init`), one line, no secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { runCli, sandbox, secretsIn, userFile } from "./support.ts";

const emu = await withEmulator();
const NEXT = "create or pick another client with `cred-auth config init`, then sign in again";

for (const status of ["deleted", "disabled"] as const) {
  test(`print-token with a ${status} client, named or found: ERR_INVALID_CLIENT, the server's words, the next step`, async () => {
    const box = sandbox(emu, { METADATA_SERVER_DETECTION: "none" });
    const { path, json } = await userFile(emu, box);
    if (status === "deleted") emu.deleteClient(DEMO_CLIENT.clientId);
    else emu.disableClient(DEMO_CLIENT.clientId);
    try {
      const expected = `cred-auth: Getting an access token with the user credentials in ${JSON.stringify(path)} failed: ${status}_client: the OAuth client was ${status}; ${NEXT}. (ERR_INVALID_CLIENT)\n`;
      for (const [args, env] of [
        [[path], box.env],
        [[], { ...box.env, GOOGLE_APPLICATION_CREDENTIALS: path }],
      ] as const) {
        const r = await runCli(["print-token", ...args], env);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stdout, "");
        assert.equal(r.stderr, expected);
        assert.deepEqual(secretsIn(r.stderr, [json.refresh_token, json.client_secret]), []);
      }
    } finally {
      emu.restoreClient(DEMO_CLIENT.clientId);
    }
  });
}

test("status with a deleted client: the check fails with the client's code, and the next step is a new client, then a sign-in", async () => {
  const box = sandbox(emu, { METADATA_SERVER_DETECTION: "none" });
  const { path, json } = await userFile(emu, box);
  // Signed in by cred-auth: it recorded the account.
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), account: "alice@example.com" }));
  emu.deleteClient(DEMO_CLIENT.clientId);
  try {
    const text = await runCli(["status", path, "--check"], box.env);
    assert.equal(text.code, 1, text.stderr);
    const line = (name: string) => text.stdout.split("\n").find((l) => l.startsWith(`${name}:`)) ?? "";
    assert.match(
      line("check"),
      /failed \(ERR_INVALID_CLIENT\): .* failed: deleted_client: the OAuth client was deleted; /,
    );
    assert.ok(line("check").endsWith(`${NEXT}.`), line("check"));
    assert.equal(
      line("next step"),
      `next step:     to create or pick another OAuth client, run: cred-auth config init, then: cred-auth login ${path}`,
    );
    const found = await runCli(["status", "--check", "--format", "json"], {
      ...box.env,
      GOOGLE_APPLICATION_CREDENTIALS: path,
    });
    assert.equal(found.code, 1, found.stderr);
    const reply = JSON.parse(found.stdout) as { check: { ok: boolean; code: string }; nextStep: string };
    assert.equal(reply.check.ok, false);
    assert.equal(reply.check.code, "ERR_INVALID_CLIENT");
    assert.equal(
      reply.nextStep,
      `to create or pick another OAuth client, run: cred-auth config init, then: cred-auth login ${path}`,
    );
    assert.deepEqual(secretsIn(text.stdout + found.stdout, [json.refresh_token, json.client_secret]), []);
  } finally {
    emu.restoreClient(DEMO_CLIENT.clientId);
  }
});
