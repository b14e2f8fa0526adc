// The kinds of ADC file, loaded when an ID token is asked of a client default() built from a file
// (../kinds/table.ts): a client from elsewhere (the metadata server, the caller's) must not pay for
// them (docs/architecture.md, "Load budget"). `require` is synchronous and cached.

/** The kinds of ADC file (../kinds/table.ts). */
export const adcKinds = (): typeof import("../kinds/table.js") => require("../kinds/table.js");
