// The end of stdin ends a sign-in that needs a pasted code at once (issue 26): nobody can type
// into a closed input, so waiting for the sign-in's timeout would only be a dead end. Also a second
// sign-in in the same process, after the first met the end (a stream that ended never says so again).
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { withEmulator } from "../support/emulator.ts";
import { runNode } from "../reliability/support.ts";
import { runCli, sandbox } from "./support.ts";

const emulator = await withEmulator();

test("login with stdin at its end (< /dev/null): the copy-paste sign-in ends at once with ERR_INVALID_CODE", async () => {
  const box = sandbox(emulator, { CRED_AUTH_REMOTE: "1" });
  // A timeout of ten minutes: an answer before the test's own limit can only be the end of input.
  const result = await runCli(["login", join(box.dir, "adc.json"), "--timeout", "600"], box.env, { stdin: "" });
  assert.equal(result.code, 1, result.stderr);
  const last = result.stderr.trim().split("\n").at(-1) ?? "";
  assert.match(
    last,
    /^cred-auth: No authorization code was entered: the input is closed \(end of file\).*\(ERR_INVALID_CODE\)$/,
  );
  assert.match(result.stderr, /Enter the authorization code:\n/, "the prompt as a line of its own, no escape");
});

test("a second paste sign-in in a process whose stdin already ended ends at once too", async () => {
  const box = sandbox(emulator, { CRED_AUTH_REMOTE: "1" });
  const script = `
    const credAuth = require("cred-auth");
    const signIn = (file) =>
      credAuth.saveUserCredentials(["https://www.googleapis.com/auth/cloud-platform"], file, { presenter: "plain", timeoutMs: 600000 })
        .then(() => "saved", (error) => error.code);
    (async () => {
      const first = await signIn(${JSON.stringify(join(box.dir, "one.json"))});
      const second = await signIn(${JSON.stringify(join(box.dir, "two.json"))});
      console.log(JSON.stringify([first, second]));
    })();`;
  // stdin is /dev/null: at its end from the start.
  const run = await runNode(["-e", script], { env: box.env });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), ["ERR_INVALID_CODE", "ERR_INVALID_CODE"]);
});
