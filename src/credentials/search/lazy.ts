// What default()'s search loads only when it needs it: the kinds of ADC file when a file is found,
// impersonation when the impersonateServiceAccount option asks for it. default() with a hosted
// notebook's credentials must not pay for them (bench/README.md, target 4; docs/architecture.md,
// "Load budget"). One typed getter each; `require` is synchronous and cached.

/** The kinds of ADC file, met when default() finds a file (../kinds/table.ts). */
export const adcKinds = (): typeof import("../kinds/table.js") => require("../kinds/table.js");

/** Service-account impersonation through google-auth-library's `Impersonated` (the option). */
export const impersonation = (): typeof import("../clients/impersonated.js") => require("../clients/impersonated.js");
