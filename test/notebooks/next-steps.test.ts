// Every next step after a two-cell sign-in started leads somewhere, on a real tslab kernel: a
// re-run of the sign-in cell in each state, the placeholder pasted by Run All, a wrong code,
// Deny, a misspelt scope (test/notebooks/next-steps.ts has the steps; deno.test.ts runs them on Deno).
import { test } from "node:test";
import { tslabKernelIn, using } from "./cells.ts";
import { PRINT, pasteBackMistakes, rerunInEveryState, scopeMistakes } from "./next-steps.ts";
import { findJupyterPython, tslabFixture } from "./support.ts";

const python = findJupyterPython();
const skip = python || process.env.CI ? false : "Jupyter (python3-nbclient, python3-jupyter-client) is not installed";
if (skip) console.warn(`\n!!! SKIPPING the notebook next-step tests: ${skip}. They run under CI. !!!\n`);

const fixture = tslabFixture("cred-auth-next-steps-", skip);

/** Remote, with no code page, as Google serves a Desktop client: the address is pasted back. */
const REMOTE_DESKTOP = { CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" };
const IMPORT = 'import * as credAuth from "cred-auth";';
/** A failed tslab cell: its reply says error. */
const failed = (ran: { status: string | null }) => ran.status === "error";

test("tslab: re-running the sign-in cell starts a new sign-in in every state, for default() and getUserCredentials()", {
  skip,
  timeout: 240_000,
}, async () => {
  await using(tslabKernelIn(fixture, python!, REMOTE_DESKTOP), async (kernel) => {
    await kernel.run(IMPORT);
    await rerunInEveryState(kernel, "default", PRINT.tslab);
    await rerunInEveryState(kernel, "getUserCredentials", PRINT.tslab);
  });
});

test("tslab: Run All with the placeholder, a wrong code, Deny and a misspelt scope each print one line and lead on", {
  skip,
  timeout: 240_000,
}, async () => {
  await using(tslabKernelIn(fixture, python!, REMOTE_DESKTOP), async (kernel) => {
    await kernel.run(IMPORT);
    await pasteBackMistakes(kernel, PRINT.tslab, failed, () => fixture.emulator.stats().tokenRequests);
    await scopeMistakes(kernel, failed);
  });
});
