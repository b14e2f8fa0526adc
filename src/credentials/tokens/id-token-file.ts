// An ID token for any ADC file through the token cache shared by processes (print-identity-token runs in
// loops too): a cached one loads no package; a miss loads the kind's tokens.ts.
import { tokenCacheDir } from "../../token-cache/index.js";
import { trustedUniverse } from "../../trust/urls.js";
import { checkedAudience } from "../../protocols/id-token-words.js";
import type { IdTokenFileRequest } from "../kinds/kind.js";
import { type AdcFile, kindOf, readAdcFile } from "../kinds/table.js";

/** Options of {@link idTokenForFile}. */
export interface FileIdTokenOptions {
  /** Who the token is for (a Cloud Run URL, an IAP client id); user credentials without one give their own. */
  audience?: string;
  /** Put the service account's e-mail in an impersonated or federated token (IAM's `includeEmail`). Default false. */
  includeEmail?: boolean;
  /** Ignore the token cache and get a new token. */
  fresh?: boolean;
  /** Where `CRED_AUTH_EMULATOR_HOST`, `GOOGLE_CLOUD_UNIVERSE_DOMAIN` and the cache's place are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The universe whose services may receive the file's secrets (default: `GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else googleapis.com). */
  universeDomain?: string;
  /** Read the file only when it is the user's own and private (one found without a path). */
  privateOnly?: boolean;
}

/** An ID token for a credentials file. */
export interface FileIdToken {
  idToken: string;
  /** When it expires (its `exp`), in milliseconds since the epoch. */
  expiryDate: number;
  /** The file's `type`. */
  credentialsType: AdcFile["type"];
}

/** A cached or new ID token for the ADC file at `path`; ERR_ID_TOKEN_UNSUPPORTED for federation without impersonation. */
export async function idTokenForFile(path: string, options: FileIdTokenOptions = {}): Promise<FileIdToken> {
  const env = options.env ?? process.env;
  const universe = trustedUniverse(env, options.universeDomain);
  const file = readAdcFile(path, { privateOnly: options.privateOnly === true });
  const kind = kindOf(file);
  const request: IdTokenFileRequest = {
    path,
    env,
    universe,
    audience: checkedAudience(options.audience, file.type, kind.ownIdToken),
    includeEmail: options.includeEmail === true,
    cache: { fresh: options.fresh === true, dir: tokenCacheDir(env) },
  };
  const token = await kind.idToken(file, request);
  return { idToken: token.access_token, expiryDate: token.expiry_date, credentialsType: file.type };
}
