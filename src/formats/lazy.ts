// Modules of formats/ loaded when first needed, as typed getters (one lazy.ts per layer).
/** Only service-account keys are checked with node:crypto: print-token on a user file must not load it (bench target 2). */
export const nodeCrypto = (): typeof import("node:crypto") => require("node:crypto");
