// Where the credentials cache keeps a refresh token and client secret: the keychain when one
// answers (`auto`, the default), the keychain or an error (`keychain`), the file (`file`). Decided
// in the settings order (option > CRED_AUTH_SECRET_STORE > the `secret-store` setting > auto), when a
// save needs it: the cache is saved outside any sign-in too (`cache.save()`), so it asks the settings
// itself (.dependency-cruiser.cjs names this module beside the sign-in plan), only on a save.
import { CredAuthError, ERROR_CODES } from "../errors.js";
import { SECRET_STORES } from "../settings/keys.js";
import { chosen } from "../settings/order.js";
import { readSetting } from "../settings/read.js";
import { ENV } from "../shared/constants.js";
import { printable } from "../trust/text.js";

/**
 * Where the credentials cache keeps its refresh token and client secret: `auto` (the keychain when
 * one answers, else the file, said once), `keychain` (the keychain or an error), `file`.
 */
export type SecretStore = "auto" | "keychain" | "file";

// The setting's values are these (settings/keys.ts, below this layer, cannot name the type).
SECRET_STORES satisfies readonly SecretStore[];

/** The store `option` (a cache's `secretStore`), the environment or the settings choose; `auto` when none says. */
export function chooseSecretStore(option: SecretStore | undefined, env: NodeJS.ProcessEnv = process.env): SecretStore {
  return (
    chosen(
      option,
      () => fromEnv(env),
      () => readSetting("secret-store", env),
    ) ?? "auto"
  );
}

/** `value` as a store, or a coded error naming where it came from. */
export function checkedSecretStore(value: unknown, where: string): SecretStore {
  const store = SECRET_STORES.find((s) => s === value);
  if (store !== undefined) return store;
  throw new CredAuthError(
    `${where} is ${printable(JSON.stringify(value) ?? String(value))}; it must be one of ${SECRET_STORES.join(", ")}.`,
    { code: ERROR_CODES.INVALID_OPTION },
  );
}

function fromEnv(env: NodeJS.ProcessEnv): SecretStore | undefined {
  const value = env[ENV.secretStore]?.trim();
  return value ? checkedSecretStore(value, ENV.secretStore) : undefined;
}
