// What a person does after a two-cell sign-in started, run on a real kernel (tslab or Deno): run
// the sign-in cell again in every state, paste the placeholder, a wrong code, a denial. Each
// step checks the words shown and the number of lines an error prints.
import assert from "node:assert/strict";
import { approveSignIn } from "cred-auth/emulator";
import type { CellKernel, DriverEvent, Executed } from "./cells.ts";

type Ran = Executed & { events: DriverEvent[] };

const SCOPES = '["https://www.googleapis.com/auth/cloud-platform"]';

/** The two calls that sign in: a cell assigning `name`. */
export const SIGN_IN_CALLS = {
  default: (name: string) => `const [${name}] = await credAuth.default(${SCOPES});`,
  getUserCredentials: (name: string) => `const ${name} = await credAuth.getUserCredentials(${SCOPES});`,
} as const;

/** The lines an error printed: tslab's stderr, Deno's traceback (empty lines dropped). */
export function errorLines(ran: Executed): string[] {
  const lines = ran.traceback.length > 0 ? ran.traceback : ran.stderr.split("\n");
  return lines.filter((line) => line.trim() !== "");
}

/** The sign-in links a cell showed. */
const linksOf = (ran: Ran) => ran.events.filter((event) => event.event === "sign-in").map((event) => event.url!);

/** What `credentials.getAccessToken()` says now, as `CODE: message` (or "token"). */
export async function use(kernel: CellKernel, credentials: string, print: Print): Promise<string> {
  const ran = await kernel.run(
    print(
      `await ${credentials}.getAccessToken().then(() => "token", (error) => \`\${error.code}: \${error.message}\`)`,
    ),
  );
  assert.equal(ran.status, "ok", `${ran.error} ${ran.stderr}`);
  return ran.stdout + ran.plain.join("\n");
}

/** Code that shows the value of a TypeScript expression as a cell's output. */
export type Print = (expression: string) => string;

/** tslab: console.log; Deno: its display (console output may land under a later cell). */
export const PRINT = {
  tslab: (expression: string) => `console.log(${expression});`,
  deno: (expression: string) => `await Deno.jupyter.display({ "text/plain": String(${expression}) }, { raw: true });`,
} satisfies Record<string, Print>;

/** Runs a sign-in cell that must end normally with a new link (not one seen before). */
async function signInCell(kernel: CellKernel, code: string, seen: Set<string>, state: string): Promise<Ran> {
  const ran = await kernel.run(code);
  assert.equal(ran.status, "ok", `${state}: the cell ended normally: ${ran.error} ${ran.stderr}`);
  const links = linksOf(ran);
  assert.equal(links.length, 1, `${state}: the re-run showed a new link: ${JSON.stringify(ran)}`);
  assert.ok(!seen.has(links[0]!), `${state}: a new link, not an old one`);
  seen.add(links[0]!);
  return ran;
}

/**
 * Re-runs the sign-in cell of `call` in each of the four states (pending, after using the
 * credentials too early, after cancelSignIn(), after Kernel › Interrupt): each run shows a new
 * link; the card and credentials it replaced say so.
 */
export async function rerunInEveryState(
  kernel: CellKernel,
  call: keyof typeof SIGN_IN_CALLS,
  print: Print,
): Promise<void> {
  const cell = SIGN_IN_CALLS[call];
  const name = (n: number) => `${call.slice(0, 3)}${n}`;
  const seen = new Set<string>();
  await signInCell(kernel, cell(name(1)), seen, `${call}: first run`);

  const pending = await signInCell(kernel, cell(name(2)), seen, `${call}: while pending`);
  assert.ok(
    pending.plain.some((text) => /A newer sign-in replaced this one/.test(text)),
    `${call}: the old card says it was replaced: ${pending.plain.join(" | ")}`,
  );
  assert.match(
    await use(kernel, name(1), print),
    /ERR_CANCELLED: A newer sign-in replaced this one: use what the newest sign-in cell returned/,
  );

  assert.match(await use(kernel, name(2), print), /ERR_SIGN_IN_PENDING/, `${call}: used too early`);
  await signInCell(kernel, cell(name(3)), seen, `${call}: after using the credentials too early`);
  assert.match(await use(kernel, name(2), print), /ERR_CANCELLED: A newer sign-in replaced/);

  const cancelled = await kernel.run(print("credAuth.cancelSignIn()"));
  assert.match(cancelled.stdout + cancelled.plain.join(""), /true/, "there was a sign-in to cancel");
  await signInCell(kernel, cell(name(4)), seen, `${call}: after cancelSignIn()`);

  const interrupted = await kernel.interrupt();
  assert.match(interrupted.plain.at(-1) ?? "", /cancelled \(kernel interrupt\)/, JSON.stringify(interrupted));
  await new Promise((resolve) => setTimeout(resolve, 500)); // tslab drops a request within 200 ms of a failure
  await signInCell(kernel, cell(name(5)), seen, `${call}: after Kernel › Interrupt`);
  await kernel.run("credAuth.cancelSignIn();");
}

/** The loopback address a browser on another machine ends on (the redirect, not followed). */
async function remoteBrowser(link: string, decision: "allow" | "deny" = "allow"): Promise<string> {
  const page = await approveSignIn(link, { decision, followRedirect: false });
  assert.match(page.url, /^http:\/\/localhost:\d+\/\?/, "the browser's final address");
  return page.url;
}

/** The second cell as the card writes it (assigned: the cell shows its short note, not the object). */
const complete = (address: string) => `const signedIn = await credAuth.completeSignIn(${JSON.stringify(address)});`;

/**
 * A loopback sign-in with the address pasted back (a remote kernel, a Desktop client):
 * - Run All with the placeholder: one line, no request; the real address then signs in;
 * - a wrong code: one line "not accepted ... paste again", the card says so; the right address signs in;
 * - Deny: the card and the credentials say denied; a re-run signs in.
 */
export async function pasteBackMistakes(
  kernel: CellKernel,
  print: Print,
  failed: (ran: Executed) => boolean,
  tokenRequests: () => number,
) {
  // Nothing cached: each sign-in cell signs in anew.
  const sign = (name: string) =>
    `const [${name}] = await credAuth.default(${SCOPES}, { credentialsCache: credAuth.cache.NOOP });`;
  // Run All: the sign-in cell, then the placeholder cell.
  const [first, placeholder] = await kernel.runTogether([
    sign("ra"),
    'await credAuth.completeSignIn("PASTE-THE-ADDRESS-HERE");',
  ]);
  assert.equal(first!.status, "ok", `${first!.error} ${first!.stderr}`);
  const link = linksOf(first!)[0];
  assert.ok(link);
  assert.ok(failed(placeholder!), "the placeholder cell failed");
  assert.equal(errorLines(placeholder!).length, 1, `one line: ${errorLines(placeholder!).join("\n")}`);
  assert.match(
    errorLines(placeholder!)[0]!,
    /\[ERR_INVALID_CODE\].*placeholder: paste the address your browser ended on/,
  );
  assert.equal(linksOf(placeholder!).length, 0);
  await new Promise((resolve) => setTimeout(resolve, 500));
  // The first cell asked the token server about the client: counted from here, the placeholder alone.
  const before = tokenRequests();
  assert.ok(failed(await kernel.run('await credAuth.completeSignIn("PASTE-THE-ADDRESS-HERE");')));
  assert.equal(tokenRequests(), before, "no request sent for the placeholder");
  await new Promise((resolve) => setTimeout(resolve, 500));
  const real = await kernel.run(complete(await remoteBrowser(link)));
  assert.equal(real.status, "ok", `${real.error} ${real.stderr}`);
  assert.match(await use(kernel, "ra", print), /^token/m, "the placeholder did not spend the sign-in");

  // A wrong code (this sign-in's state, a code Google never issued), then the right address.
  const second = await kernel.run(sign("wr"));
  const address = await remoteBrowser(linksOf(second)[0]!);
  const wrong = new URL(address);
  wrong.searchParams.set("code", "4/0AWrongCode");
  const refused = await kernel.run(complete(wrong.href));
  assert.ok(failed(refused), "the wrong code's cell failed");
  assert.equal(errorLines(refused).length, 1, errorLines(refused).join("\n"));
  assert.match(errorLines(refused)[0]!, /Not accepted; the sign-in is still waiting: paste again/);
  const card = refused.plain.at(-1) ?? "";
  assert.match(card, /Not accepted: .* Still waiting: paste again\./, `the first card follows: ${card}`);
  const cards = refused.events.filter((event) => event.event === "card").map((event) => event.status);
  assert.deepEqual(cards, ["waiting"], "no red card: the first card still waits");
  await new Promise((resolve) => setTimeout(resolve, 500));
  const right = await kernel.run(complete(address));
  assert.equal(right.status, "ok", `${right.error} ${right.stderr}`);
  assert.match(await use(kernel, "wr", print), /^token/m);

  // Deny, then a re-run.
  const third = await kernel.run(sign("dn"));
  const deniedAt = await remoteBrowser(linksOf(third)[0]!, "deny");
  const denied = await kernel.run(complete(deniedAt));
  assert.ok(failed(denied));
  assert.equal(errorLines(denied).length, 1, errorLines(denied).join("\n"));
  assert.match(
    errorLines(denied)[0]!,
    /\[ERR_ACCESS_DENIED\]: The sign-in was denied in the browser \(access_denied\): sign in again and choose Allow\./,
  );
  assert.match(
    denied.plain.at(-1) ?? "",
    /The sign-in was denied in the browser \(access_denied\): sign in again/,
    "the card",
  );
  assert.match(
    await use(kernel, "dn", print),
    /ERR_ACCESS_DENIED: These credentials' sign-in ended: The sign-in was denied/,
  );
  const again = await kernel.run(sign("dn2"));
  assert.equal(linksOf(again).length, 1, "the re-run shows a new link");
  const signedIn = await kernel.run(complete(await remoteBrowser(linksOf(again)[0]!)));
  assert.equal(signedIn.status, "ok", `${signedIn.error} ${signedIn.stderr}`);
}

/** A misspelt scope and one with a space, through default(): one line each. */
export async function scopeMistakes(kernel: CellKernel, failed: (ran: Executed) => boolean) {
  const misspelt = await kernel.run('await credAuth.default(["https://www.googleapis.com/auth/cloud-platfrom"]);');
  assert.ok(failed(misspelt));
  assert.equal(errorLines(misspelt).length, 1, errorLines(misspelt).join("\n"));
  assert.match(
    errorLines(misspelt)[0]!,
    /\[ERR_INVALID_SCOPE\].*did you mean https:\/\/www\.googleapis\.com\/auth\/cloud-platform\?/,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  const spaced = await kernel.run('await credAuth.default(["https://www.googleapis.com/auth/cloud-platform "]);');
  assert.ok(failed(spaced));
  assert.equal(errorLines(spaced).length, 1, errorLines(spaced).join("\n"));
  assert.match(errorLines(spaced)[0]!, /\[ERR_INVALID_SCOPE\].*has a space around it/);
  await new Promise((resolve) => setTimeout(resolve, 500));
}
