// Every next step after a two-cell sign-in started leads somewhere, on a real Deno kernel (the
// steps are test/notebooks/next-steps.ts; next-steps.test.ts runs them on tslab).
import { test } from "node:test";
import { CellKernel, using } from "./cells.ts";
import { denoFixture, python, skip } from "./deno-kernel.ts";
import { PRINT, pasteBackMistakes, rerunInEveryState, scopeMistakes } from "./next-steps.ts";

const fixture = denoFixture("cred-auth-deno-next-steps-");

/** Remote, with no code page: as Google serves a Desktop client. */
const REMOTE_DESKTOP = { CRED_AUTH_REMOTE: "1", CRED_AUTH_EMULATOR_CODE_PAGE: "off" };

const denoKernel = () =>
  new CellKernel({
    python: python!,
    kernel: "deno",
    work: fixture.work,
    jupyterPath: fixture.jupyterPath,
    emulatorHost: fixture.emulator.host,
    env: { DENO_NO_UPDATE_CHECK: "1", ...REMOTE_DESKTOP },
  });

/** A failed Deno cell: its reply says error. */
const failedCell = (ran: { status: string | null }) => ran.status === "error";

test("Deno: re-running the sign-in cell starts a new sign-in in every state, for default() and getUserCredentials()", {
  skip,
  timeout: 240_000,
}, async () => {
  await using(denoKernel(), async (kernel) => {
    await kernel.run('import * as credAuth from "cred-auth";');
    await rerunInEveryState(kernel, "default", PRINT.deno);
    await rerunInEveryState(kernel, "getUserCredentials", PRINT.deno);
  });
});

test("Deno: Run All with the placeholder, a wrong code, Deny and a misspelt scope each print one line and lead on", {
  skip,
  timeout: 240_000,
}, async () => {
  await using(denoKernel(), async (kernel) => {
    await kernel.run('import * as credAuth from "cred-auth";');
    await pasteBackMistakes(kernel, PRINT.deno, failedCell, () => fixture.emulator.stats().tokenRequests);
    await scopeMistakes(kernel, failedCell);
  });
});
