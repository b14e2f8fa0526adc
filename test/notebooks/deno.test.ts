// Deno's Jupyter kernel, for real, against the emulator, while the test approves each sign-in
// like a browser: notebooks/05-deno.ipynb (nbclient through run_deno_notebook.py), and cells run
// one by one (run_cells.py): an interrupt, a remote kernel's two-cell and copy-paste sign-ins.
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { approving, assertCancelledOnce, assertSaidOnce, CellKernel, listening, using } from "./cells.ts";
import { denoFixture, python, skip } from "./deno-kernel.ts";
import { codeCells, htmlOf, type NotebookRun, type Output, runNotebook, statusOf, text } from "./support.ts";
import { visibleText, wordsOf } from "../support/words.ts";

const driver = fileURLToPath(new URL("./run_deno_notebook.py", import.meta.url));
const fixture = denoFixture("cred-auth-deno-notebook-");

/** Runs one notebook on the Deno kernel; each sign-in it shows is approved as carol. */
function runOnDeno(name: string): Promise<NotebookRun> {
  return runNotebook({
    python: python!,
    driver,
    name,
    work: fixture.work,
    jupyterPath: fixture.jupyterPath,
    emulatorHost: fixture.emulator.host,
    account: "carol@example.com",
    env: { DENO_NO_UPDATE_CHECK: "1" },
  });
}

/**
 * What the cell displayed as plain text (not the sign-in card): the notebook displays its values
 * (Deno's kernel may put console output under a later cell).
 */
const shownOf = (cell: { outputs?: Output[] }) =>
  (cell.outputs ?? [])
    .filter((o) => o.output_type === "display_data" && !o.data?.["text/html"])
    .map((o) => text(o.data?.["text/plain"]))
    .join("");

test("05-deno: default() signs in through Deno.jupyter.display on a real Deno kernel, then the API answers", {
  skip,
  timeout: 90_000,
}, async () => {
  const run = await runOnDeno("05-deno.ipynb");
  assert.equal(run.ok, true, `the notebook ran to the end: ${run.error}`);
  const [setup, signIn, request] = codeCells(run);
  assert.ok(setup && signIn && request);
  assert.ok(
    shownOf(setup).includes(`Using the emulator at http://${fixture.emulator.host}`),
    `the kernel got the test's emulator: ${shownOf(setup)}`,
  );
  assert.equal(run.signIns.length, 1, "one sign-in link was shown while the cell waited");
  assert.match(run.signIns[0]!.redirectUri, /^http:\/\/localhost:\d+\/$/, "loopback flow");
  assert.deepEqual(
    run.cards.map((card) => card.status),
    ["preparing", "waiting", "signed-in"],
    "the card appeared with the link while the cell waited, then said signed in",
  );
  const displays = (signIn.outputs ?? []).filter((o) => text(o.data?.["text/html"]).includes("cred-auth-sign-in"));
  assert.equal(displays.length, 1, "one card, updated in place (display_id), not one per state");
  assert.deepEqual(statusOf(htmlOf(signIn)), ["signed-in"], "the display now says signed in");
  assert.match(
    text(displays[0]!.data?.["text/plain"]),
    /^cred-auth · Signed in as carol@example\.com\n/,
    "a plain-text fallback",
  );
  assert.match(htmlOf(signIn), /Signed in as carol@example\.com/);
  assert.equal(shownOf(signIn), "project: (none: user credentials)");
  assert.equal(shownOf(request), "200 Hello from the cred-auth emulator!", "plain text: no quotes, no ANSI colours");
  const cache = join(run.home, ".config", "cred", "cred_credentials.json");
  assert.equal(statSync(cache).mode & 0o777, 0o600, "the credentials were cached, private");
});

test("Kernel › Interrupt on Deno's kernel while the sign-in waits: the card says cancelled, the cell's one line says why, the port closes, the kernel lives on", {
  skip,
  timeout: 90_000,
}, async () => {
  const kernel = new CellKernel({
    python: python!,
    kernel: "deno",
    work: fixture.work,
    jupyterPath: fixture.jupyterPath,
    emulatorHost: fixture.emulator.host,
    env: { DENO_NO_UPDATE_CHECK: "1" },
  });
  try {
    await kernel.run('import * as credAuth from "cred-auth";');
    const interrupted = await kernel.run(
      'await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"], { useLocalWebserver: true });',
      { interruptOn: "waiting" },
    );
    const link = interrupted.events.find((event) => event.event === "sign-in")?.url;
    assert.ok(link, "the card showed the link");
    const statuses = interrupted.events.filter((event) => event.event === "card").map((event) => event.status);
    assert.equal(statuses.at(-1), "failed", statuses.join(", "));
    // The cell ends with the cancel as its one line: the card says it was cancelled and how to start again.
    assert.deepEqual(interrupted.traceback, [
      "CredCancelledError [ERR_CANCELLED]: The sign-in was cancelled (kernel interrupt). Nothing was saved.",
    ]);
    assert.equal(
      interrupted.plain.at(-1),
      "cred-auth · Sign-in cancelled\nWhy: the error under this card. Run the sign-in cell again.",
    );
    assertSaidOnce(interrupted, "cancelled (kernel interrupt)");
    const port = Number(new URL(new URL(link).searchParams.get("redirect_uri")!).port);
    assert.equal(await listening(port), false, `the loopback port ${port} is closed`);
    const alive = await kernel.run('await Deno.jupyter.display({ "text/plain": "alive" }, { raw: true });');
    assert.deepEqual(alive.plain, ["alive"], "Deno's kernel did not die of the SIGINT");
    assert.equal(existsSync(join(kernel.home, ".config", "cred", "cred_credentials.json")), false, "nothing saved");
  } finally {
    await kernel.close();
  }
});

/** A Deno kernel of this file's setup, with `env`. */
const denoKernel = (env: Record<string, string>) =>
  new CellKernel({
    python: python!,
    kernel: "deno",
    work: fixture.work,
    jupyterPath: fixture.jupyterPath,
    emulatorHost: fixture.emulator.host,
    env: { DENO_NO_UPDATE_CHECK: "1", ...env },
  });

/** Remote, with no code page: as Google serves a Desktop client. */
const REMOTE_DESKTOP = { CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" };

const DENO_SIGN_IN =
  'const [credentials] = await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"]);';

test("Deno, remote, Desktop client: the first cell ends with the card and the paste-back help; completeSignIn(address) in the next cell signs in", {
  skip,
  timeout: 90_000,
}, async () => {
  await using(denoKernel(REMOTE_DESKTOP), async (kernel) => {
    await kernel.run('import * as credAuth from "cred-auth";');
    let address: string | undefined;
    // The browser is on another machine: the redirect to the kernel's loopback port is not followed.
    const remoteBrowser = approving(
      { account: "carol@example.com", followRedirect: false },
      (page) => (address = page.url),
    );
    const first = await kernel.run(DENO_SIGN_IN, { onEvent: remoteBrowser });
    assert.equal(first.status, "ok", `the cell ended normally: ${first.error} ${first.stderr}`);
    assert.equal(first.error, null);
    const card = first.plain.at(-1) ?? "";
    assert.doesNotMatch(card, /looks remote/, "why this flow is folded in the HTML card's details, not in its text");
    assert.match(card, /completeSignIn\("PASTE-THE-ADDRESS-HERE"\)/, "the paste-back instructions");
    assert.match(address ?? "", /^http:\/\/localhost:\d+\/\?/, "the browser's final address");
    const second = await kernel.run(
      `await credAuth.completeSignIn(${JSON.stringify(address)});
const { token } = await credentials.getAccessToken();
const response = await fetch(\`http://${fixture.emulator.host}/storage/v1/b/demo-bucket/o/hello.txt?alt=media\`, { headers: { Authorization: \`Bearer \${token}\` } });
await Deno.jupyter.display({ "text/plain": \`\${response.status} \${(await response.text()).trim()}\` }, { raw: true });`,
    );
    assert.equal(second.status, "ok", `${second.error} ${second.stderr}`);
    assert.ok(second.plain.includes("200 Hello from the cred-auth emulator!"), second.plain.join(" | "));
    assert.ok(
      second.plain.some((text) => /Signed in as carol@example\.com/.test(text)),
      "the first card now says signed in",
    );
  });
});

test("Deno: Kernel › Interrupt while the two-cell sign-in waits between cells cancels it; the port closes, the kernel lives on", {
  skip,
  timeout: 90_000,
}, async () => {
  await using(denoKernel(REMOTE_DESKTOP), async (kernel) => {
    await kernel.run('import * as credAuth from "cred-auth";');
    const first = await kernel.run(DENO_SIGN_IN);
    assert.equal(first.status, "ok", `${first.error} ${first.stderr}`);
    const link = first.events.find((event) => event.event === "sign-in")?.url;
    assert.ok(link);
    const port = Number(new URL(new URL(link).searchParams.get("redirect_uri")!).port);
    assert.equal(await listening(port), true, "the receiver still listens for a browser that can reach it");
    const interrupted = await kernel.interrupt();
    assertCancelledOnce(interrupted.plain);
    assert.equal(await listening(port), false, `the loopback port ${port} is closed`);
    const after = await kernel.run(
      'await Deno.jupyter.display({ "text/plain": await credentials.getAccessToken().then(() => "token", (e) => e.code) }, { raw: true });',
    );
    assert.deepEqual(after.plain, ["ERR_CANCELLED"], "the kernel lives on; the credentials say they were cancelled");
  });
});

test("Deno: a refused sign-in is the card saying it failed and one line with its code saying why, once", {
  skip,
  timeout: 90_000,
}, async () => {
  await using(denoKernel({ CRED_AUTH_REMOTE: "0" }), async (kernel) => {
    await kernel.run('import * as credAuth from "cred-auth";');
    const refused = await kernel.run(DENO_SIGN_IN, { onEvent: approving({ decision: "deny" }) });
    assert.equal(refused.status, "error");
    assert.equal(refused.error, "CredCredentialsError");
    assert.deepEqual(refused.traceback, [
      "CredCredentialsError [ERR_ACCESS_DENIED]: The sign-in was denied in the browser (access_denied): sign in again and choose Allow.",
    ]);
    assertSaidOnce(refused, "the sign-in was denied in the browser");
    assert.match(
      refused.plain.at(-1) ?? "",
      /^cred-auth · Sign-in failed\n.*the error under this card/,
      "the card points below",
    );
  });
});

test("Deno: cached credentials name their account in a small note; accountNote: false leaves it out", {
  skip,
  timeout: 90_000,
}, async () => {
  await using(denoKernel({ CRED_AUTH_REMOTE: "0" }), async (kernel) => {
    await kernel.run('import * as credAuth from "cred-auth";');
    const signedIn = await kernel.run(DENO_SIGN_IN, { onEvent: approving({ account: "carol@example.com" }) });
    assert.equal(signedIn.status, "ok", `${signedIn.error} ${signedIn.stderr}`);
    assert.ok(!signedIn.plain.some((text) => /\(cached\)/.test(text)), "a fresh sign-in shows the card, not the note");
    const scopes = '["https://www.googleapis.com/auth/cloud-platform"]';
    const cached = await kernel.run(`const cachedCredentials = await credAuth.getUserCredentials(${scopes});`);
    assert.equal(cached.status, "ok", cached.stderr);
    assert.deepEqual(cached.plain, ["cred-auth: using account carol@example.com (cached)"]);
    const quiet = await kernel.run(
      `const quietCredentials = await credAuth.getUserCredentials(${scopes}, { accountNote: false });`,
    );
    assert.equal(quiet.status, "ok", quiet.stderr);
    assert.deepEqual(quiet.plain, [], "turned off");
  });
});

/** This machine is a container (its marker file); elsewhere the user's word stands in for it. */
const container = ["/.dockerenv", "/run/.containerenv"].some((marker) => existsSync(marker));

for (const [where, env] of [
  ["in a container", container ? {} : { CRED_AUTH_REMOTE: "1" }],
  ["over SSH", { SSH_CONNECTION: "10.0.0.1 50000 10.0.0.2 22" }],
] as const) {
  test(`Deno ${where}, the default client: the card with the link comes first, then the input box takes the code`, {
    skip,
    timeout: 90_000,
  }, async () => {
    await using(denoKernel(env), async (kernel) => {
      await kernel.run('import * as credAuth from "cred-auth";');
      let shown: string | undefined;
      let linksBeforeInput: number | undefined;
      const browser = approving({ account: "carol@example.com" }, (page) => (shown = page.shown));
      const signedIn = await kernel.run(
        `${DENO_SIGN_IN}\nawait Deno.jupyter.display({ "text/plain": (await credentials.getAccessToken()).token ? "token" : "none" }, { raw: true });`,
        {
          onEvent: async (event) => {
            await browser(event);
            if (event.event !== "input") return undefined;
            linksBeforeInput = event.links;
            return shown;
          },
        },
      );
      assert.equal(linksBeforeInput, 1, "the card with the link was on screen before the input box");
      const card = signedIn.html.findLast((html) => /cred-auth-status="code"/.test(html)) ?? "";
      const words = wordsOf(visibleText(card));
      console.log(`the Deno waiting card ${where}: ${words.length} visible words`);
      assert.ok(
        words.length <= 60,
        `at most 60 visible words, details folded, not ${words.length}: ${words.join(" ")}`,
      );
      assert.equal(signedIn.status, "ok", `${signedIn.error} ${signedIn.stderr}`);
      assert.ok(signedIn.plain.includes("token"), signedIn.plain.join(" | "));
      assert.ok(
        signedIn.plain.some((text) => /Signed in as carol@example\.com/.test(text)),
        "the card says signed in",
      );
      assert.equal(signedIn.stderr, "", "nothing on stderr after a successful sign-in");
    });
  });
}
