// Every kind of Application Default Credentials file, keyed by its `type`: the one place a file's
// type chooses what is done with it. A type without a kind, or a kind without a capability, does
// not compile. Each entry is read only when a file of its type is met, so print-token's cached
// path evaluates its own kind's module and no other (test/cli/hot-path.test.ts).
import { credentialsJson, unsupportedType } from "../../formats/credentials-file.js";
import type { ReadCredentialsOptions } from "../../stores/credentials-file.js";
import { readStoredFileSync } from "../../stores/index.js";
import { federatedKind } from "./federated/index.js";
import { impersonatedKind } from "./impersonated.js";
import type { AdcFile, AdcFileType, FileOf, Kind } from "./kind.js";
import { keyKind } from "./key/index.js";
import { userKind } from "./user/index.js";
import { workforceUserKind } from "./workforce-user/index.js";

const KINDS: { readonly [T in AdcFileType]: () => Kind<FileOf<T>> } = {
  authorized_user: () => userKind,
  service_account: () => keyKind,
  impersonated_service_account: () => impersonatedKind,
  external_account: () => federatedKind,
  external_account_authorized_user: () => workforceUserKind,
};

/** The kind of `file`. */
export function kindOf<F extends AdcFile>(file: F): Kind<F> {
  return KINDS[file.type]() as unknown as Kind<F>;
}

/** The kind of a file whose `type` field is `type`; undefined for a type cred-auth does not read. */
export function kindNamed(type: unknown): Kind<AdcFile> | undefined {
  return typeof type === "string" && Object.hasOwn(KINDS, type)
    ? (KINDS[type as AdcFileType]() as unknown as Kind<AdcFile>)
    : undefined;
}

/** The ADC file `bytes` (read from `path`), parsed by the kind its `type` names. */
export function parseAdcBytes(bytes: Uint8Array, path: string): AdcFile {
  const json = credentialsJson(bytes, path);
  const kind = kindNamed(json.type);
  if (kind === undefined) throw unsupportedType(json, path);
  return kind.parse(json, path);
}

/** The ADC file at `path`, of any type, read once under the file-trust rule (a store's form included). */
export function readAdcFile(path: string, options: ReadCredentialsOptions = {}): AdcFile {
  return readStoredFileSync(path, parseAdcBytes, options);
}
