// The modules this layer loads only when they are needed: the sign-in machinery (its plan, the
// flow with its loopback server, the faces) when a sign-in runs, impersonation and federation
// when such a file or option is met, the kinds of ADC file when default() finds one. A cache
// hit, and default() with ADC, must not pay for them (bench/README.md, targets 2 and 4). One typed
// getter each; `require` is synchronous and cached.

/** The sign-in plan: decisions made once (credentials/plan.ts). */
export const signInPlanner = (): typeof import("./plan.js") => require("./plan.js");

/** The OAuth flow. */
export const signInFlow = (): typeof import("../oauth/flow.js") => require("../oauth/flow.js");

/** Credentials returned before their sign-in finished (a notebook's two-cell sign-in). */
export const pendingUserCredentials = (): typeof import("./pending-credentials.js") =>
  require("./pending-credentials.js");

/** The faces. */
export const presenters = (): typeof import("../ui/select.js") => require("../ui/select.js");

/** Service-account impersonation through google-auth-library's `Impersonated` (files and the option). */
export const impersonation = (): typeof import("./impersonated.js") => require("./impersonated.js");

/** The `impersonateServiceAccount` option's chain syntax. */
export const impersonationChain = (): typeof import("../formats/impersonation-chain.js") =>
  require("../formats/impersonation-chain.js");

/** Federation files (external_account, external_account_authorized_user). */
export const externalAdc = (): typeof import("./external-adc.js") => require("./external-adc.js");

/** The kinds of ADC file, met when default() finds a file (./kinds/table.ts). */
export const adcKinds = (): typeof import("./kinds/table.js") => require("./kinds/table.js");
