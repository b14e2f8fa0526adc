// Every kind of ADC file, keyed by its `type`: the one place a file's type chooses what is done with it,
// parsing included. A type without a kind does not compile; an entry is evaluated only when its type is met.
import type { AuthClient } from "google-auth-library";
import { credentialsJson, unsupportedType } from "../../formats/credentials-file.js";
import { getCredentialInfo } from "../../protocols/info.js";
import { loadGoogleAuth } from "../../util/lazy.js";
import type { ReadCredentialsOptions } from "../../stores/credentials-file.js";
import { readStoredFileSync } from "../../stores/index.js";
import { federatedKind } from "./federated/index.js";
import type { ImpersonationSource } from "./impersonated/file.js";
import { impersonatedKind } from "./impersonated/index.js";
import type { Kind, SourceKind } from "./kind.js";
import { keyKind } from "./key/index.js";
import { userKind } from "./user/index.js";
import { workforceUserKind } from "./workforce-user/index.js";

/** The kinds an impersonated file's source may be. */
const SOURCES = {
  authorized_user: () => userKind,
  service_account: () => keyKind,
  external_account_authorized_user: () => workforceUserKind,
} satisfies {
  readonly [T in ImpersonationSource["type"]]: () => SourceKind<Extract<ImpersonationSource, { type: T }>>;
};

let impersonated: ReturnType<typeof impersonatedKind> | undefined;

/** Every kind, keyed by its file's `type`: a sixth ADC type is one folder and one line here. */
const KINDS = byType({
  ...SOURCES,
  impersonated_service_account: () => (impersonated ??= impersonatedKind(sourceKindOf)),
  external_account: () => federatedKind,
});

/** `kinds`, each under its own file's `type`: a kind under another key does not compile. */
function byType<K extends { readonly [T in keyof K & string]: () => Kind<{ type: T }> }>(kinds: K): K {
  return kinds;
}

/** Any ADC file cred-auth reads: the file of each kind in the table. */
export type AdcFile = { [T in keyof typeof KINDS]: FileOfKind<ReturnType<(typeof KINDS)[T]>> }[keyof typeof KINDS];

/** Every `type` of ADC file cred-auth reads. */
export type AdcFileType = AdcFile["type"];

type FileOfKind<K> = K extends { parse(json: Record<string, unknown>, path: string): infer F } ? F : never;

/** The kind of an impersonation's `source`. */
function sourceKindOf<S extends ImpersonationSource>(source: S): SourceKind<S> {
  return SOURCES[source.type]() as unknown as SourceKind<S>;
}

/** The kind of `file`. */
export function kindOf<F extends AdcFile>(file: F): Kind<F> {
  return kindFor<F>(file.type);
}

/** The table's entry for files of `type` (TypeScript cannot pair a union's member with its entry). */
function kindFor<F extends AdcFile>(type: F["type"]): Kind<F> {
  return KINDS[type]() as unknown as Kind<F>;
}

/** Whether `type` is a `type` cred-auth reads. */
function isAdcFileType(type: unknown): type is AdcFileType {
  return typeof type === "string" && Object.hasOwn(KINDS, type);
}

/** The kind of a file whose `type` field is `type`; undefined for a type cred-auth does not read. */
export function kindNamed(type: unknown): Kind<AdcFile> | undefined {
  return isAdcFileType(type) ? kindFor(type) : undefined;
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

/** An ADC type, or the metadata server's credentials. */
export type ClientType = AdcFileType | "metadata server";

/**
 * What `client` is: what the kind that built it recorded (protocols/info.ts); for a client the caller
 * built, its class, told apart here alone. Undefined for none of these.
 */
export async function clientTypeOf(client: AuthClient): Promise<ClientType | undefined> {
  const recorded = getCredentialInfo(client)?.type;
  if (recorded === "metadata server" || isAdcFileType(recorded)) return recorded;
  const gal = await loadGoogleAuth();
  if (client instanceof gal.UserRefreshClient) return "authorized_user";
  if (client instanceof gal.JWT) return "service_account";
  if (client instanceof gal.Impersonated) return "impersonated_service_account";
  if (client instanceof gal.BaseExternalAccountClient) return "external_account";
  if (client instanceof gal.ExternalAccountAuthorizedUserClient) return "external_account_authorized_user";
  return client instanceof gal.Compute ? "metadata server" : undefined;
}
