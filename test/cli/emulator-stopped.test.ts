// The emulator stopped while CRED_AUTH_EMULATOR_HOST still names it: every command that asks it
// for something (print-token, print-identity-token, status's check, revoke) says that nothing
// answers at the emulator's address and how to start it again, not "check the network".
import assert from "node:assert/strict";
import { test } from "node:test";
import { withEmulator } from "../support/emulator.ts";
import { runCli, sandbox, serviceAccountFile, userFile } from "./support.ts";

const emulator = await withEmulator();
const box = sandbox(emulator, { CRED_AUTH_TOKEN_CACHE: "off" });
const user = await userFile(emulator, box, "user.json", [
  "https://www.googleapis.com/auth/cloud-platform",
  "openid",
  "https://www.googleapis.com/auth/userinfo.email",
]);
const key = serviceAccountFile(emulator, box);
const port = new URL(emulator.url).port;
await emulator.close();

const advice = (code: string) =>
  `nothing answers at the emulator's address http://127.0.0.1:${port} (CRED_AUTH_EMULATOR_HOST${code}): start it with \`cred-auth emulator --port ${port}\`, or unset CRED_AUTH_EMULATOR_HOST to use Google.`;

test("print-token and print-identity-token name the emulator that does not answer (exit 3)", async () => {
  const token = await runCli(["print-token", user.path], box.env);
  assert.equal(token.code, 3, token.stderr);
  assert.equal(
    token.stderr,
    `cred-auth: Getting an access token with the user credentials in ${JSON.stringify(user.path)} failed: ${advice("; ECONNREFUSED")} (ERR_UNREACHABLE)\n`,
  );
  const id = await runCli(["print-identity-token", key.path, "--audiences", "https://example.com"], box.env);
  assert.equal(id.code, 3, id.stderr);
  assert.match(
    id.stderr,
    /^cred-auth: Getting an ID token for service account .* failed: nothing answers at the emulator's address/,
  );
  assert.ok(id.stderr.includes(advice("; ECONNREFUSED")), id.stderr);
});

test("status's check and revoke name it too; revoke removes nothing", async () => {
  const status = await runCli(["status", user.path, "--check"], box.env);
  assert.equal(status.code, 1, status.stderr);
  assert.ok(status.stdout.includes(advice("; ECONNREFUSED")), status.stdout);
  const revoke = await runCli(["revoke", user.path], box.env);
  assert.equal(revoke.code, 3, revoke.stderr);
  assert.equal(
    revoke.stderr,
    `cred-auth: Nothing was revoked: ${advice("; ECONNREFUSED")} Nothing was removed. (ERR_UNREACHABLE)\n`,
  );
});
