// What a sign-in loads only when one runs: its plan, the flow with its loopback server, the faces,
// the pending credentials of a notebook's two-cell sign-in, impersonation when asked for, and the
// kinds when a destination holds a file. A cache hit, and default() with ADC, must not pay for them
// (bench/README.md, targets 2 and 4; docs/architecture.md, "Load budget"). One typed getter each;
// `require` is synchronous and cached.

/** The sign-in plan: decisions made once (./plan.ts). */
export const signInPlanner = (): typeof import("./plan.js") => require("./plan.js");

/** The OAuth flow. */
export const signInFlow = (): typeof import("../../oauth/flow.js") => require("../../oauth/flow.js");

/** Credentials returned before their sign-in finished (a notebook's two-cell sign-in). */
export const pendingUserCredentials = (): typeof import("./pending-credentials.js") =>
  require("./pending-credentials.js");

/** The faces. */
export const presenters = (): typeof import("../../ui/select.js") => require("../../ui/select.js");

/** Service-account impersonation through google-auth-library's `Impersonated` (the option). */
export const impersonation = (): typeof import("../clients/impersonated.js") => require("../clients/impersonated.js");

/** The `impersonateServiceAccount` option's chain syntax. */
export const impersonationChain = (): typeof import("../../formats/impersonation-chain.js") =>
  require("../../formats/impersonation-chain.js");

/** The kinds of ADC file, met when a destination already holds a file (../kinds/table.ts). */
export const adcKinds = (): typeof import("../kinds/table.js") => require("../kinds/table.js");
