// Kernel › Interrupt while a sign-in waits, on a real tslab kernel: jupyter_client's
// interrupt_kernel() (a SIGINT, Jupyter's default interrupt_mode) must cancel the sign-in.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { approveSignIn } from "cred-auth/emulator";
import { assertCancelledOnce, listening, tslabKernelIn } from "./cells.ts";
import { findJupyterPython, tslabFixture } from "./support.ts";

const python = findJupyterPython();
const skip = python || process.env.CI ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";
if (skip) console.warn(`\n!!! SKIPPING the kernel interrupt test: ${skip}. It runs under CI. !!!\n`);

const fixture = tslabFixture("cred-auth-interrupt-", skip);

/** A tslab kernel in the fixture, with the loopback flow unless `env` says otherwise. */
const tslabKernel = (env: Record<string, string> = {}) =>
  tslabKernelIn(fixture, python!, { CRED_AUTH_REMOTE: "0", ...env });

/**
 * The SIGINT listeners, counted after an await: while a cell's synchronous part runs, Node's
 * `vm` (tslab passes `breakOnSigint`) detaches them all and puts them back afterwards.
 */
const COUNT_SIGINT =
  'await new Promise((resolve) => setTimeout(resolve, 0)); console.log(process.listenerCount("SIGINT"));';

const SIGN_IN = 'const [credentials] = await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"]);';

test("Kernel › Interrupt while the sign-in waits: the card says cancelled, the port closes, nothing is written; the next run signs in", {
  skip,
}, async () => {
  const kernel = tslabKernel();
  try {
    const imported = await kernel.run('import * as credAuth from "cred-auth";');
    assert.equal(imported.error, null, imported.stderr);
    assert.equal((await kernel.run(COUNT_SIGINT)).stdout.trim(), "1", "tslab's own");

    const interrupted = await kernel.run(SIGN_IN, { interruptOn: "waiting" });
    const link = interrupted.events.find((event) => event.event === "sign-in")?.url;
    assert.ok(link, "the card showed the link");
    assert.ok(interrupted.events.some((event) => event.event === "interrupted"));
    const port = Number(new URL(new URL(link).searchParams.get("redirect_uri")!).port);
    const statuses = interrupted.events.filter((event) => event.event === "card").map((event) => event.status);
    assert.equal(statuses.at(-1), "failed", `the card's last state before the cell ended: ${statuses.join(", ")}`);
    assertCancelledOnce(interrupted.plain);
    // Checked right after the kernel reported the cell finished: the cancel was not left for later.
    assert.equal(await listening(port), false, `the loopback port ${port} is closed`);
    assert.equal(existsSync(join(kernel.home, ".config", "cred", "cred_credentials.json")), false, "nothing saved");
    await assert.rejects(approveSignIn(link, { account: "bob@example.com" }), "the old link leads nowhere");
    // An interrupted cell is a failed one: tslab drops requests that arrive within 200 ms of it
    // (its "Run All" rule), so the next cell comes later, as a person's would.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await kernel.run(COUNT_SIGINT)).stdout.trim(), "1", "the interrupt hook is gone with its sign-in");

    let approval: unknown;
    const again = await kernel.run(
      `${SIGN_IN}\nconsole.log("signed in:", credentials.credentials.refresh_token !== undefined);`,
      {
        onEvent: async (event) => {
          if (event.event === "sign-in" && event.url)
            approval = await approveSignIn(event.url, { account: "bob@example.com" }).catch((error: Error) => error);
        },
      },
    );
    assert.ok(!(approval instanceof Error), `the browser came back: ${approval} ${JSON.stringify(again)}`);
    assert.equal(again.error, null, again.stderr);
    assert.match(again.stdout, /signed in: true/);
    const cards = again.events.filter((event) => event.event === "card").map((event) => event.status);
    assert.equal(cards.at(-1), "signed-in");
    assert.equal(again.events.filter((event) => event.event === "sign-in").length, 1, "one sign-in, one listener");
    assert.ok(existsSync(join(kernel.home, ".config", "cred", "cred_credentials.json")), "saved this time");
    assert.equal((await kernel.run(COUNT_SIGINT)).stdout.trim(), "1");
  } finally {
    await kernel.close();
  }
});

test("Kernel › Interrupt while a two-cell sign-in waits for its code: the first cell's card says cancelled, the code is no longer taken, its credentials say so", {
  skip,
}, async () => {
  const kernel = tslabKernel({ CRED_AUTH_REMOTE: "1" });
  try {
    await kernel.run('import * as credAuth from "cred-auth";');
    let link: string | undefined;
    const first = await kernel.run(SIGN_IN, {
      onEvent: (event) => {
        link ??= event.url;
      },
    });
    assert.equal(first.status, "ok", "the first cell ended with the credentials, waiting for the code");
    assert.equal(first.stderr, "");
    assert.ok(link && new URL(link).searchParams.get("redirect_uri")?.endsWith("/oauth/code"), "copy-paste flow");
    assert.equal((await kernel.run(COUNT_SIGINT)).stdout.trim(), "2", "the waiting card listens beside tslab");

    const interrupted = await kernel.interrupt();
    assert.equal(interrupted.error, null, "the first cell's card turned to failed");
    assertCancelledOnce(interrupted.plain);

    const page = await approveSignIn(link, { account: "bob@example.com" });
    assert.ok(page.code, "the code page still shows a code");
    const late = await kernel.run(
      `try { await credAuth.completeSignIn(${JSON.stringify(page.code)}); console.log("taken"); } catch (error) { console.log("refused:", (error as Error).message); }`,
    );
    assert.match(late.stdout, /refused: No sign-in is waiting/, late.stdout + late.stderr);
    const stale = await kernel.run(
      'console.log("credentials:", await credentials.getAccessToken().then(() => "token", (error) => error.code + ": " + error.message));',
    );
    assert.match(
      stale.stdout,
      /credentials: ERR_CANCELLED: .*cancelled \(kernel interrupt\)\. Nothing was saved\. Run the sign-in cell again\./,
      "the first cell's credentials say they were cancelled, and what to do",
    );
    assert.equal(existsSync(join(kernel.home, ".config", "cred", "cred_credentials.json")), false, "nothing saved");
    assert.equal((await kernel.run(COUNT_SIGINT)).stdout.trim(), "1", "no listener left over");
  } finally {
    await kernel.close();
  }
});
