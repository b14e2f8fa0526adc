/** This package's version, equal to `version` in its package.json. */
export const VERSION = "0.1.0";
