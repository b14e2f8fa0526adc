// Modules of trust/ loaded when first needed, as typed getters (one lazy.ts per layer).
/** print-token's cached path reads only synchronously: node:fs/promises costs it start-up time (bench target 2). */
export const fsp = (): typeof import("node:fs/promises") => require("node:fs/promises");
/**
 * The redaction owner, for rooms that need it only when a server refused (token errors, a hosted
 * platform's words): default()'s warm path, which loads those rooms, then does not load it.
 */
export const redaction = (): typeof import("./redact.js") => require("./redact.js");
