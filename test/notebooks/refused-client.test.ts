// A notebook whose OAuth client was deleted after it signed in, on a real tslab kernel: re-running
// the sign-in cell shows, on the card, the token server's refusal and the next step, one line under
// the cell, and no sign-in link (the consent page would only say "Error 401: deleted_client").
import assert from "node:assert/strict";
import { test } from "node:test";
import { DEMO_CLIENT } from "cred-auth/emulator";
import { approving, assertSaidOnce, tslabKernelIn, using } from "./cells.ts";
import { errorLines } from "./next-steps.ts";
import { findJupyterPython, tslabFixture } from "./support.ts";

const python = findJupyterPython();
const skip = python || process.env.CI ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";
if (skip) console.warn(`\n!!! SKIPPING the refused-client notebook test: ${skip}. It runs under CI. !!!\n`);

const fixture = tslabFixture("cred-auth-refused-client-", skip);
const SIGN_IN = 'const [credentials] = await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"]);';
const NEXT = "create or pick another client with `cred-auth config init`, then sign in again";

test("tslab: the client was deleted since the sign-in: after a restart the card says it failed, one line says why and the next step, no link", {
  skip,
}, async () => {
  const first = tslabKernelIn(fixture, python!, { CRED_AUTH_REMOTE: "0" });
  await using(first, async (kernel) => {
    await kernel.run('import * as credAuth from "cred-auth";');
    const signedIn = await kernel.run(SIGN_IN, { onEvent: approving() });
    assert.equal(signedIn.status, "ok", `${signedIn.error} ${signedIn.stderr}`);
  });
  fixture.emulator.deleteClient(DEMO_CLIENT.clientId);
  try {
    // The restarted kernel finds the cached refresh token (no access token: the token cache is off).
    await using(tslabKernelIn(fixture, python!, { CRED_AUTH_REMOTE: "0" }, { home: first.home }), async (kernel) => {
      await kernel.run('import * as credAuth from "cred-auth";');
      const { authorizations } = fixture.emulator.stats();
      const refused = await kernel.run(SIGN_IN);
      assert.equal(refused.status, "error", "the cell failed");
      assert.equal(refused.events.filter((event) => event.event === "sign-in").length, 0, "no sign-in link was shown");
      const cards = refused.events.filter((event) => event.event === "card").map((event) => event.status);
      assert.equal(cards.at(-1), "failed", cards.join(", "));
      const card = refused.plain.at(-1) ?? "";
      assert.match(card, /^cred-auth · Sign-in failed\n.*the error under this card/, `the card points below: ${card}`);
      assertSaidOnce(refused, "deleted_client: the OAuth client was deleted");
      // The emulator's notice comes with the first request of a process: it is no part of the error.
      const lines = errorLines(refused).filter(
        (line) => !/CRED_AUTH_EMULATOR_HOST: using the local emulator/.test(line),
      );
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(lines[0]!, /\[ERR_INVALID_CLIENT\]: .*deleted_client: the OAuth client was deleted; create or pick/);
      assert.ok(lines[0]!.includes(NEXT), `the line names the next step: ${lines[0]}`);
      assert.equal(fixture.emulator.stats().authorizations, authorizations, "nobody was sent to the consent page");
    });
  } finally {
    fixture.emulator.restoreClient(DEMO_CLIENT.clientId);
  }
});
