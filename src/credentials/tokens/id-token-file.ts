// An ID token for any ADC file through the token cache shared by processes (print-identity-token runs in
// loops too): a cached one loads no package; a miss loads the kind's tokens.ts.
import { checkedAudience } from "../../protocols/id-token-words.js";
import type { IdTokenFileRequest } from "../kinds/kind.js";
import { type FileToken, type FileTokenOptions, fileRequest } from "./file-token.js";

/** Options of {@link idTokenForFile}: {@link accessTokenForFile}'s but the scopes, and two of their own. */
export interface FileIdTokenOptions extends Omit<FileTokenOptions, "scopes"> {
  /** Who the token is for (a Cloud Run URL, an IAP client id); user credentials without one give their own. */
  audience?: string;
  /** Put the service account's e-mail in an impersonated or federated token (IAM's `includeEmail`). Default false. */
  includeEmail?: boolean;
}

/** An ID token for a credentials file; `expiryDate` is its `exp`. */
export interface FileIdToken extends Pick<FileToken, "expiryDate" | "credentialsType"> {
  idToken: string;
}

/** A cached or new ID token for the ADC file at `path`; ERR_ID_TOKEN_UNSUPPORTED for federation without impersonation. */
export async function idTokenForFile(path: string, options: FileIdTokenOptions = {}): Promise<FileIdToken> {
  const { file, kind, common } = fileRequest(path, options);
  const audience = checkedAudience(options.audience, file.type, kind.ownIdToken);
  const request: IdTokenFileRequest = { ...common, audience, includeEmail: options.includeEmail === true };
  const token = await kind.idToken(file, request);
  return { idToken: token.access_token, expiryDate: token.expiry_date, credentialsType: file.type };
}
