// What the kinds load only when they need it: new tokens on a token-cache miss (print-token's and
// print-identity-token's refresh), and google-auth-library's clients when default() meets such a
// file. A cache hit must not pay for them (bench/README.md, target 2). One typed getter each.

/** A new access token for a credentials file, on a token-cache miss. */
export const fileRefresh = (): typeof import("./refresh.js") => require("./refresh.js");

/** A new ID token for a credentials file, on a token-cache miss. */
export const idTokenMint = (): typeof import("./id-token-mint.js") => require("./id-token-mint.js");

/** Federation files' clients (external_account, external_account_authorized_user). */
export const externalAdc = (): typeof import("../clients/external-adc.js") => require("../clients/external-adc.js");

/** An impersonated_service_account file's client. */
export const impersonation = (): typeof import("./impersonated-client.js") => require("./impersonated-client.js");
