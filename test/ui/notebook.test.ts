import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CredCancelledError, CredCredentialsError, ERROR_CODES } from "cred-auth";
import {
  COMPLETE_SIGN_IN_CALL,
  COMPLETE_WITH_ADDRESS_CALL,
  createNotebookPresenter,
  kernelTslab,
  renderSignInHtml,
} from "../../dist/ui/notebook.js";
import { escapeHtml } from "../../dist/util/html.js";
import { createDenoPresenter } from "../../dist/ui/deno.js";
import { INITIAL_STATE } from "../../dist/ui/view-state.js";
import type { SignInEvent } from "../../dist/oauth/events.js";

/** A stand-in for tslab's display module: records what each display shows. */
function fakeTslab() {
  const displays: string[][] = [];
  return {
    displays,
    newDisplay() {
      const shown: string[] = [];
      displays.push(shown);
      return { html: (html: string) => void shown.push(html) };
    },
  };
}

/** A stand-in for tslab with its internal display writer (tslab/dist/jupyter): records whole messages. */
function fakeTslabWithWriter() {
  const messages: Array<{
    message: { data: Record<string, string>; transient: { display_id: string } };
    update: boolean;
  }> = [];
  const jupyter = {
    lastWriteDisplayData: (message: never, update: boolean) => void messages.push({ message, update }),
  };
  const tslab = fakeTslab();
  const globals = {
    __tslab__: {
      require: (id: string) => (id === "tslab" ? tslab : id === "tslab/dist/jupyter" ? jupyter : undefined),
    },
  };
  return { globals, messages, tslab, jupyter };
}

const URL_WITH_AMP =
  "http://127.0.0.1:9/o/oauth2/v2/auth?client_id=a&redirect_uri=http%3A%2F%2Flocalhost%3A8080%2F&state=x";
const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/bigquery"];

function status(html: string): string {
  const match = /data-cred-auth-status="([^"]+)"/.exec(html);
  assert.ok(match, "the card carries its status");
  return match[1]!;
}

test("loopback: one display, updated in place: link, scopes in words, waiting, signed in", () => {
  const tslab = fakeTslab();
  const presenter = createNotebookPresenter(tslab);
  assert.equal(presenter.readCode, undefined, "a tslab cell has no stdin");
  assert.equal(tslab.displays.length, 0, "nothing shown before the first event");
  presenter.update({ type: "url", url: URL_WITH_AMP, mode: "loopback", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "waiting" });
  presenter.update({
    type: "signed-in",
    account: "ann@example.com",
    savedTo: "/home/ann/.config/cred/cred_credentials.json",
  });
  assert.equal(tslab.displays.length, 1, "a single display, overwritten");
  const [first, waiting, done] = tslab.displays[0]!;
  assert.ok(first && waiting && done);
  assert.match(first, /cred-auth · Sign in to Google Cloud/);
  assert.match(first, /See, edit, configure and delete your Google Cloud data/);
  assert.match(first, /View and manage your data in Google BigQuery/);
  assert.ok(first.includes(`href="${URL_WITH_AMP.replaceAll("&", "&#38;")}"`), "the link's href is the escaped URL");
  assert.match(first, /target="_blank" rel="noopener noreferrer"/);
  assert.equal(status(waiting), "waiting");
  assert.match(waiting, /Waiting for you to sign in in the browser/);
  assert.equal(status(done), "signed-in");
  assert.match(
    done,
    /<div style="font-weight:600">cred-auth · Signed in as ann@example.com<\/div>/,
    "the outcome leads",
  );
  assert.match(done, /Saved to \/home\/ann\/.config\/cred\/cred_credentials.json/);
  assert.doesNotMatch(
    done,
    /href=|Sign in to Google Cloud|It asks to/,
    "no button, no imperative title, no list once signed in",
  );
});

test("paste in tslab: the card explains the second cell", () => {
  const tslab = fakeTslab();
  const presenter = createNotebookPresenter(tslab);
  presenter.update({ type: "url", url: URL_WITH_AMP, mode: "paste", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "code-needed" });
  const html = tslab.displays[0]!.at(-1)!;
  assert.equal(status(html), "code");
  assert.match(html, /await credAuth\.completeSignIn\(&#34;PASTE-THE-CODE-HERE&#34;\)/);
  assert.match(html, /copy the code the page shows and run in a new cell/);
  assert.match(html, /href=/);
});

test("loopback on a remote machine: the card says to paste the browser's final address into completeSignIn", () => {
  const tslab = fakeTslab();
  const presenter = createNotebookPresenter(tslab);
  presenter.update({ type: "url", url: URL_WITH_AMP, mode: "loopback", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "waiting", paste: true });
  const html = tslab.displays[0]!.at(-1)!;
  assert.equal(status(html), "waiting");
  assert.match(html, /error page at http:\/\/localhost:…/);
  assert.match(html, /paste its address into this in a new cell/);
  assert.match(html, /await credAuth\.completeSignIn\(&#34;PASTE-THE-ADDRESS-HERE&#34;\)/);
  presenter.update({
    type: "waiting",
    paste: true,
    rejected: new CredCredentialsError("This address is from an older sign-in."),
  });
  assert.match(
    tslab.displays[0]!.at(-1)!,
    /Not accepted: This address is from an older sign-in\. \(ERR_CREDENTIALS\) Still waiting: paste again\./,
    "the refusal, and that the sign-in goes on",
  );
  const local = fakeTslab();
  const nearby = createNotebookPresenter(local);
  nearby.update({ type: "waiting" });
  assert.doesNotMatch(
    local.displays[0]!.at(-1)!,
    /completeSignIn/,
    "no paste help when the browser comes back by itself",
  );
});

test("every display carries text/plain too, through tslab's own writer, with one display id", () => {
  const { globals, messages } = fakeTslabWithWriter();
  const presenter = createNotebookPresenter(kernelTslab(globals));
  presenter.update({ type: "url", url: URL_WITH_AMP, mode: "loopback", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "waiting" });
  presenter.update({ type: "signed-in", account: "ann@example.com", savedTo: "/tmp/c.json" });
  assert.deepEqual(
    messages.map((m) => m.update),
    [false, true, true],
  );
  assert.equal(new Set(messages.map((m) => m.message.transient.display_id)).size, 1);
  const [first, waiting, done] = messages.map((m) => m.message.data);
  assert.match(first!["text/html"]!, /Sign in with Google/);
  assert.match(first!["text/plain"]!, /Open this link to sign in: http:\/\/127\.0\.0\.1:9\/o\/oauth2/);
  assert.match(waiting!["text/plain"]!, /Waiting for you to sign in in the browser/);
  assert.equal(done!["text/plain"], "cred-auth · Signed in as ann@example.com\nSaved to /tmp/c.json");
});

test("tslab's writer outside a running cell (null) does not break the sign-in", () => {
  const { globals, jupyter, messages } = fakeTslabWithWriter();
  (jupyter as { lastWriteDisplayData: unknown }).lastWriteDisplayData = null;
  const presenter = createNotebookPresenter(kernelTslab(globals));
  assert.doesNotThrow(() => presenter.update({ type: "waiting" }));
  assert.equal(messages.length, 0);
});

test("a cancelled sign-in says why, that nothing was saved, and how to start again", () => {
  const tslab = fakeTslab();
  const presenter = createNotebookPresenter(tslab);
  presenter.update({ type: "waiting" });
  presenter.update({ type: "failed", error: new CredCancelledError("The sign-in was cancelled (kernel interrupt).") });
  const html = tslab.displays[0]!.at(-1)!;
  assert.equal(status(html), "failed");
  assert.match(html, /cancelled \(kernel interrupt\)\. Nothing was saved\. Run the sign-in cell again\./);
  assert.match(html, /cred-auth · Sign-in cancelled</, "the title leads with the outcome");
});

test("a card in a final state is not drawn again (an interrupt and the cancel it starts both say failed)", () => {
  const tslab = fakeTslab();
  const presenter = createNotebookPresenter(tslab);
  presenter.update({ type: "waiting" });
  const cancelled = new CredCancelledError("The sign-in was cancelled (kernel interrupt).");
  presenter.update({ type: "failed", error: cancelled });
  presenter.update({ type: "failed", error: cancelled });
  presenter.update({ type: "signed-in", account: "ann@example.com" });
  assert.equal(tslab.displays.length, 1);
  assert.deepEqual(tslab.displays[0]!.map(status), ["waiting", "failed"]);
});

test("failed: the error in words, escaped", () => {
  const tslab = fakeTslab();
  const presenter = createNotebookPresenter(tslab);
  presenter.update({ type: "url", url: URL_WITH_AMP, mode: "loopback", scopes: SCOPES, browserOpened: true });
  presenter.update({
    type: "failed",
    error: new CredCredentialsError("Access was denied <script>alert(1)</script>; run again."),
  });
  const html = tslab.displays[0]!.at(-1)!;
  assert.equal(status(html), "failed");
  assert.match(html, /Access was denied &#60;script&#62;alert\(1\)&#60;\/script&#62;; run again\./);
  assert.doesNotMatch(html, /<script>/);
});

/** The text/plain each card (tslab's, Deno's) ends on after `events`. */
function lastTextOfBothCards(events: SignInEvent[]): string[] {
  const tslab = fakeTslabWithWriter();
  const deno = fakeDeno([]);
  const presenters = [createNotebookPresenter(kernelTslab(tslab.globals)), createDenoPresenter(deno.globals)];
  for (const presenter of presenters) for (const event of events) presenter.update(event);
  return [tslab.messages.at(-1)!.message.data["text/plain"]!, deno.calls.at(-1)!.bundle["text/plain"]!];
}

test("failed and thrown into the card's own cell: the card says the outcome and points below, the words are said once there", () => {
  const denied = new CredCredentialsError("The sign-in was denied in the browser (access_denied).", {
    code: ERROR_CODES.ACCESS_DENIED,
  });
  const texts = lastTextOfBothCards([
    { type: "url", url: URL_WITH_AMP, mode: "loopback", scopes: SCOPES, browserOpened: true },
    { type: "failed", error: denied, thrown: true },
  ]);
  for (const text of texts) {
    assert.equal(text, "cred-auth · Sign-in failed\nWhy, and what to do: the error under this card.");
    assert.doesNotMatch(text, /denied|ERR_ACCESS_DENIED/, "the kernel's error line says it, not the card too");
  }
});

test("cancelled and thrown into its own cell: the card keeps how to start again", () => {
  const cancelled = new CredCancelledError("The sign-in was cancelled (no code entered). Nothing was saved.");
  const events: SignInEvent[] = [{ type: "code-needed" }, { type: "failed", error: cancelled, thrown: true }];
  for (const text of lastTextOfBothCards(events))
    assert.equal(text, "cred-auth · Sign-in cancelled\nWhy: the error under this card. Run the sign-in cell again.");
});

test("failed with no cell awaiting it (a background failure): the card keeps the words and the code", () => {
  const denied = new CredCredentialsError("The sign-in was denied in the browser (access_denied).", {
    code: ERROR_CODES.ACCESS_DENIED,
  });
  const events: SignInEvent[] = [
    { type: "waiting", paste: true },
    { type: "failed", error: denied },
  ];
  for (const text of lastTextOfBothCards(events))
    assert.equal(
      text,
      "cred-auth · Sign-in failed\nThe sign-in was denied in the browser (access_denied). (ERR_ACCESS_DENIED)",
    );
});

test("everything from outside is escaped: account, path, URL, scopes", () => {
  const html = renderSignInHtml({
    ...INITIAL_STATE,
    phase: "signed-in",
    url: 'http://x/"><img src=x onerror=alert(1)>',
    scopes: ['<b>"scope"</b>'],
    account: "<i>ann</i>@example.com",
    savedTo: "/tmp/a&b<c>.json",
  });
  assert.doesNotMatch(html, /<img|<i>|<b>/);
  assert.match(html, /&#60;i&#62;ann&#60;\/i&#62;@example.com/);
  assert.match(html, /\/tmp\/a&#38;b&#60;c&#62;.json/);
  const waiting = renderSignInHtml({
    ...INITIAL_STATE,
    phase: "waiting",
    scopes: ['<b>"scope"</b>'],
    url: 'http://x/"><img src=x onerror=alert(1)>',
  });
  assert.doesNotMatch(waiting, /<img|<b>/);
  assert.match(waiting, /&#60;b&#62;&#34;scope&#34;&#60;\/b&#62;/);
  assert.match(waiting, /href="http:\/\/x\/&#34;&#62;&#60;img/);
});

test("a URL that is not http(s) never becomes a link", () => {
  const html = renderSignInHtml({ ...INITIAL_STATE, phase: "waiting", url: "javascript:alert(1)" });
  assert.doesNotMatch(html, /href=/);
  assert.match(html, /<code[^>]*>javascript:alert\(1\)<\/code>/);
});

test("escapeHtml escapes the five characters", () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&</a>`),
    "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;",
  );
});

test("a display that throws does not break the sign-in", () => {
  const presenter = createNotebookPresenter({
    newDisplay: () => ({
      html() {
        throw new Error("Not ready");
      },
    }),
  });
  assert.doesNotThrow(() => presenter.update({ type: "waiting" }));
});

test("kernelTslab: reaches tslab through the kernel's own require; a clear error elsewhere", () => {
  const own = fakeTslab();
  const asked: string[] = [];
  const module = kernelTslab({
    __tslab__: {
      require: (id: string) => {
        asked.push(id);
        if (id === "tslab") return own;
        throw new Error(`Cannot find module '${id}'`);
      },
    },
  });
  assert.equal(module, own, "without tslab's writer, tslab's own displays (HTML only)");
  assert.deepEqual(asked, ["tslab", "tslab/dist/jupyter"]);
  assert.throws(
    () => kernelTslab({}),
    (error: Error) => error instanceof CredCredentialsError && error.code === ERROR_CODES.PRESENTER_UNAVAILABLE,
  );
});

/** A stand-in for Deno.jupyter and the kernel's prompt(). */
function fakeDeno(answers: Array<string | null>) {
  const calls: Array<{ bundle: Record<string, string>; options: { display_id: string; update?: boolean } }> = [];
  const prompts: string[] = [];
  const globals = {
    Deno: {
      jupyter: {
        display: async (bundle: Record<string, string>, options: { raw: true; display_id: string; update?: boolean }) =>
          void calls.push({ bundle, options }),
      },
    },
    prompt: (message: string) => {
      prompts.push(message);
      return answers.shift() ?? null;
    },
    crypto: globalThis.crypto,
  };
  return { globals, calls, prompts };
}

test("Deno: one display id, the first call creates it and the next ones update it", () => {
  const deno = fakeDeno([]);
  const presenter = createDenoPresenter(deno.globals);
  presenter.update({ type: "url", url: URL_WITH_AMP, mode: "loopback", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "waiting" });
  presenter.update({ type: "signed-in", account: "ann@example.com" });
  assert.equal(deno.calls.length, 3);
  const ids = new Set(deno.calls.map((c) => c.options.display_id));
  assert.equal(ids.size, 1);
  assert.deepEqual(
    deno.calls.map((c) => c.options.update),
    [false, true, true],
  );
  assert.match(deno.calls[2]!.bundle["text/html"]!, /Signed in as ann@example.com/);
  assert.match(deno.calls[2]!.bundle["text/plain"]!, /^cred-auth · Signed in as ann@example.com$/);
});

test("Deno: a card in a final state is not sent again (a late update would land under the next cell)", () => {
  const deno = fakeDeno([]);
  const presenter = createDenoPresenter(deno.globals);
  presenter.update({ type: "waiting" });
  const cancelled = new CredCancelledError("The sign-in was cancelled (kernel interrupt).");
  presenter.update({ type: "failed", error: cancelled });
  presenter.update({ type: "failed", error: cancelled });
  assert.deepEqual(
    deno.calls.map((call) => status(call.bundle["text/html"]!)),
    ["waiting", "failed"],
  );
});

test("Deno: the code comes from the kernel's prompt(); an empty answer cancels", async () => {
  const deno = fakeDeno(["  4/0code  ", null]);
  const presenter = createDenoPresenter(deno.globals);
  presenter.update({ type: "url", url: URL_WITH_AMP, mode: "paste", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "code-needed" });
  assert.match(deno.calls.at(-1)!.bundle["text/html"]!, /input box below/);
  assert.equal(await presenter.readCode!(new AbortController().signal), "4/0code");
  assert.equal(deno.prompts.length, 1);
  await assert.rejects(presenter.readCode!(new AbortController().signal), CredCancelledError);
});

test("Deno presenter outside Deno's kernel: a clear error", () => {
  assert.throws(() => createDenoPresenter({}), CredCredentialsError);
});

test("Deno: no prompt() beside the loopback wait (it would block the redirect); the flow's signal ends it", async () => {
  const deno = fakeDeno(["never asked"]);
  const presenter = createDenoPresenter(deno.globals);
  presenter.update({ type: "url", url: URL_WITH_AMP, mode: "loopback", scopes: SCOPES, browserOpened: false });
  presenter.update({ type: "waiting", paste: true });
  const stop = new AbortController();
  const read = presenter.readCode!(stop.signal);
  stop.abort();
  await assert.rejects(read, CredCancelledError);
  assert.equal(deno.prompts.length, 0);
});

test("the notebooks write the second cell as the card does: the same placeholder, assigned (no credentials object shown)", () => {
  const cellsOf = (name: string) =>
    (
      JSON.parse(readFileSync(new URL(`../../notebooks/${name}`, import.meta.url), "utf8")) as {
        cells: Array<{ source: string[] }>;
      }
    ).cells.map((cell) => cell.source.join(""));
  assert.ok(cellsOf("06-remote-desktop-client.ipynb").some((cell) => cell.includes(COMPLETE_WITH_ADDRESS_CALL)));
  assert.ok(cellsOf("04-two-cell-sign-in.ipynb").some((cell) => cell.includes(COMPLETE_SIGN_IN_CALL)));
  for (const call of [COMPLETE_SIGN_IN_CALL, COMPLETE_WITH_ADDRESS_CALL]) assert.match(call, /^const \w+ = await /);
});

test("the plan's notes and details (the emulator, why this flow) are folded behind a details element", () => {
  const html = renderSignInHtml({
    ...INITIAL_STATE,
    phase: "waiting",
    folded: ["loopback sign-in with the address pasted back: CRED_AUTH_REDIRECT_URI names a code page instead"],
  });
  assert.match(html, /<details data-cred-auth-notes[^>]*><summary[^>]*>Details<\/summary><div>loopback sign-in/);
});
