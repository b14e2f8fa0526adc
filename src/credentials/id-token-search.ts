// `cred-auth print-identity-token` without a file: an ID token from the credentials default()
// would use (./locate.ts), a hosted platform's first. It never starts a sign-in: with nothing
// found it says what to run.
import { tryHosted } from "../hosted/registry.js";
import { metadataIdToken } from "../hosted/metadata-identity.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { type FileIdTokenOptions, idTokenForFile } from "./id-token-file.js";
import { checkedAudience } from "./id-token-words.js";
import { idTokenOfClient } from "./id-token-clients.js";
import { type CredentialsSource, locateCredentials, noCredentialsFound } from "./locate.js";

/** An ID token, and where it came from. */
export interface FoundIdToken {
  idToken: string;
  /** Its `exp`, in milliseconds since the epoch. */
  expiryDate: number;
  /** The credentials it came from (a hosted platform's: `{ kind: "hosted", name }`). */
  source: CredentialsSource | { kind: "hosted"; name: string };
}

/** An ID token from the credentials default() would use, without a sign-in. */
export async function idTokenFromSearch(options: FileIdTokenOptions = {}): Promise<FoundIdToken> {
  const env = options.env ?? process.env;
  const located = await locateCredentials(env);
  if (located.hosted !== undefined) {
    const audience = checkedAudience(options.audience, `${located.hosted}'s`) as string;
    const hosted = await tryHosted([CLOUD_PLATFORM_SCOPE], true, env);
    if (hosted.result) {
      const request = { audience, includeEmail: options.includeEmail === true, env };
      const token = await idTokenOfClient(hosted.result.credentials, request);
      return {
        idToken: token.idToken,
        expiryDate: token.expiresAt,
        source: { kind: "hosted", name: hosted.result.name },
      };
    }
  }
  const { source } = located;
  if (source.kind === "file") {
    const token = await idTokenForFile(source.path, options);
    return { idToken: token.idToken, expiryDate: token.expiryDate, source };
  }
  if (source.kind === "metadata") {
    const token = await metadataIdToken(checkedAudience(options.audience, "metadata-server") as string, env);
    return { idToken: token.idToken, expiryDate: token.expiresAt, source };
  }
  throw noCredentialsFound(located);
}
