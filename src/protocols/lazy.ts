// Modules of protocols/ loaded when first needed, as typed getters (one lazy.ts per layer).
/** Token errors and their redaction: print-token's cached path loads token-requests.ts but makes no request. */
export const tokenErrors = (): typeof import("./token-errors.js") => require("./token-errors.js");
