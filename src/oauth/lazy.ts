// The modules this layer loads only when they are needed. One typed getter each; `require` is
// synchronous and cached.

/** Google's declared scopes (500, about 15 kB): read before a sign-in, never on a cache hit. */
export const googleScopes = (): typeof import("./google-scopes.js") => require("./google-scopes.js");
