// Binds the default loopback ports 8080-8089, so it runs alone (*.serial.test.ts).
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { test } from "node:test";
import { CredConnectionError } from "cred-auth";
import type { SignInEvent } from "cred-auth";
import { approveSignIn } from "cred-auth/emulator";
import { signInWith } from "./support.ts";
import { withEmulator } from "../support/emulator.ts";

const emulator = await withEmulator();
const env: NodeJS.ProcessEnv = { CRED_AUTH_EMULATOR_HOST: emulator.host, BROWSER: "none" };

/** Holds ports first..last on 127.0.0.1 (a port someone else already holds counts as held). */
async function hold(first: number, last: number): Promise<() => Promise<void>> {
  const servers: Server[] = [];
  for (let port = first; port <= last; port++) {
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (bound) servers.push(server);
  }
  return async () => void (await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));
}

test("all of 8080-8089 busy: CredConnectionError before any URL is shown or browser opened", async () => {
  const release = await hold(8080, 8089);
  const events: SignInEvent[] = [];
  try {
    await assert.rejects(
      signInWith({ scopes: ["openid"], env, presenter: { update: (e) => void events.push(e) }, openBrowser: true }),
      (error: Error) => {
        assert.ok(error instanceof CredConnectionError);
        assert.match(error.message, /Could not find open port in 8080-8089/);
        return true;
      },
    );
  } finally {
    await release();
  }
  assert.deepEqual(
    events.map((e) => e.type),
    ["failed"],
    "no url event: nothing was shown or opened",
  );
});

test("the first free port of 8080-8089 is used, as http://localhost:PORT/", async () => {
  const release = await hold(8080, 8084);
  try {
    let redirect = "";
    const result = await signInWith({
      scopes: ["openid"],
      env,
      openBrowser: false,
      presenter: {
        update(e) {
          if (e.type !== "url") return;
          redirect = new URL(e.url).searchParams.get("redirect_uri") ?? "";
          void approveSignIn(e.url).catch(() => {});
        },
      },
    });
    assert.ok(result.refreshToken);
    assert.match(redirect, /^http:\/\/localhost:808[5-9]\/$/);
  } finally {
    await release();
  }
});
