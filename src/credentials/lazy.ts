// Modules of credentials/ loaded when first needed, as typed getters (one lazy.ts per layer):
// a warm default() of user credentials, and print-token's cached path, load none of these.
export const externalAdc = (): typeof import("./external-adc.js") => require("./external-adc.js");
export const impersonatedAdc = (): typeof import("./impersonated.js") => require("./impersonated.js");
export const fileRefresh = (): typeof import("./file-refresh.js") => require("./file-refresh.js");
