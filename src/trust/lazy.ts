// Modules of trust/ loaded when first needed, as typed getters (one lazy.ts per layer).
/** print-token's cached path reads only synchronously: node:fs/promises costs it start-up time (bench target 2). */
export const fsp = (): typeof import("node:fs/promises") => require("node:fs/promises");
