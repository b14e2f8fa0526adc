/**
 * Credentials caches (SPEC 2.2).
 *
 * @packageDocumentation
 */
import { CredentialsCache } from "./base.js";

export { CredentialsCache };

/** Always reauthorizes and never writes credentials to disk. Recommended for shared machines. */
export const NOOP: CredentialsCache = new CredentialsCache();
