// print-token and print-identity-token without a file: a token from what default() would use (./locate.ts),
// in its order; never a sign-in: with nothing found, what to run.
import type { AuthClient } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { metadataIdToken } from "../../hosted/metadata.js";
import { tryHosted } from "../../hosted/registry.js";
import { CLOUD_PLATFORM_SCOPE } from "../../shared/constants.js";
import { findApplicationDefaultCredentials } from "./adc.js";
import { type FileToken, type FileTokenOptions, accessTokenForFile } from "../tokens/file-token.js";
import { idTokenOfClient } from "../tokens/id-token-clients.js";
import { type FileIdToken, type FileIdTokenOptions, idTokenForFile } from "../tokens/id-token-file.js";
import { checkedAudience } from "../../protocols/id-token-words.js";
import { type CredentialsSource, locateCredentials, noCredentialsFound } from "./locate.js";

/** Where a found token came from (a hosted platform's: `{ kind: "hosted", name }`). */
export type FoundSource = CredentialsSource | { kind: "hosted"; name: string };

/** An access token, and where it came from. */
export interface FoundAccessToken extends Pick<FileToken, "accessToken" | "scopesIgnored" | "warnings"> {
  /** When it expires, in milliseconds since the epoch, when the server said. */
  expiryDate?: number;
  source: FoundSource;
}

/** An ID token, and where it came from. */
export interface FoundIdToken extends Pick<FileIdToken, "idToken" | "expiryDate"> {
  source: FoundSource;
}

/** What each place gives, for one kind of token. */
interface Places<T> {
  /** The scopes a hosted platform's client is asked for. */
  hostedScopes: readonly string[];
  /** Checks what is asked before a hosted platform is (`hosted`: its name). */
  beforeHosted?: (hosted: string) => void;
  fromClient(client: AuthClient): Promise<T>;
  fromFile(path: string, privateOnly: boolean): Promise<T>;
  fromMetadata(): Promise<T>;
}

/** The token of the first place default() would use, and where it came from. */
async function fromSearch<T>(env: NodeJS.ProcessEnv, places: Places<T>): Promise<T & { source: FoundSource }> {
  const located = await locateCredentials(env);
  if (located.hosted !== undefined) {
    places.beforeHosted?.(located.hosted);
    const hosted = await tryHosted(places.hostedScopes, true, env);
    if (hosted.result)
      return {
        ...(await places.fromClient(hosted.result.credentials)),
        source: { kind: "hosted", name: hosted.result.name },
      };
  }
  const { source } = located;
  if (source.kind === "file") return { ...(await places.fromFile(source.path, source.privateOnly === true)), source };
  if (source.kind === "metadata") return { ...(await places.fromMetadata()), source };
  throw noCredentialsFound(located);
}

/** An access token from the credentials default() would use, without a sign-in. */
export function accessTokenFromSearch(options: FileTokenOptions = {}): Promise<FoundAccessToken> {
  const env = options.env ?? process.env;
  const scopes = options.scopes && options.scopes.length > 0 ? [...options.scopes] : [CLOUD_PLATFORM_SCOPE];
  return fromSearch(env, {
    hostedScopes: scopes,
    fromClient: tokenOf,
    async fromFile(path, privateOnly) {
      const { accessToken, expiryDate, scopesIgnored, warnings } = await accessTokenForFile(path, {
        ...options,
        privateOnly,
      });
      return { accessToken, expiryDate, scopesIgnored, warnings };
    },
    async fromMetadata() {
      // default()'s own metadata step: the VM's scopes checked against those asked for.
      const { found, reasons } = await findApplicationDefaultCredentials(scopes, env);
      if (found) return tokenOf(found.credentials);
      throw new CredCredentialsError(`No access token from the metadata server: ${reasons.join("; ")}.`, {
        code: ERROR_CODES.NO_CREDENTIALS,
      });
    },
  });
}

/** An ID token from the credentials default() would use, without a sign-in. */
export function idTokenFromSearch(options: FileIdTokenOptions = {}): Promise<FoundIdToken> {
  const env = options.env ?? process.env;
  let audience = "";
  return fromSearch(env, {
    hostedScopes: [CLOUD_PLATFORM_SCOPE],
    beforeHosted: (hosted) => {
      audience = checkedAudience(options.audience, `${hosted}'s`) as string;
    },
    async fromClient(client) {
      const token = await idTokenOfClient(client, { audience, includeEmail: options.includeEmail === true, env });
      return { idToken: token.idToken, expiryDate: token.expiresAt };
    },
    async fromFile(path, privateOnly) {
      const { idToken, expiryDate } = await idTokenForFile(path, { ...options, privateOnly });
      return { idToken, expiryDate };
    },
    async fromMetadata() {
      const token = await metadataIdToken(checkedAudience(options.audience, "metadata-server") as string, env);
      return { idToken: token.idToken, expiryDate: token.expiresAt };
    },
  });
}

/** The token a client holds or gets now, and when it expires. */
async function tokenOf(client: AuthClient): Promise<Omit<FoundAccessToken, "source">> {
  const { token } = await client.getAccessToken();
  if (!token)
    throw new CredCredentialsError("The credentials default() would use gave no access token.", {
      code: ERROR_CODES.NO_CREDENTIALS,
    });
  const expiry = client.credentials.expiry_date;
  return {
    accessToken: token,
    ...(typeof expiry === "number" ? { expiryDate: expiry } : {}),
    scopesIgnored: false,
    warnings: [],
  };
}
