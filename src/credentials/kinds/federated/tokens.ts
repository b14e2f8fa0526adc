// New tokens of an `external_account` file, loaded on a token-cache miss: STS's federated token for
// the subject read now; through the service account the file names, IAM Credentials' access or ID token.
import { awsSubjectTokenSecrets } from "../../../protocols/aws.js";
import { generateAccessToken, generateIdToken } from "../../../protocols/iam-credentials.js";
import type { FetchedIdToken } from "../../../protocols/id-token-reply.js";
import type { FetchedToken } from "../../../protocols/service-request.js";
import { exchangeSubjectToken } from "../../../protocols/sts.js";
import { CLOUD_PLATFORM_SCOPE } from "../../../shared/constants.js";
import { type CachedAccessToken, bearerEntry } from "../../../formats/token-cache-entry.js";
import type { ExternalAccountDestinations, ExternalAccountFile } from "./file.js";
import type { Subject } from "./subject.js";

/** STS's token for `subject` with `scopes`, every secret the subject token carries kept out of STS's words. */
export function federatedToken(
  file: ExternalAccountFile,
  tokenUrl: string,
  subject: Subject,
  scopes: readonly string[],
): Promise<FetchedToken> {
  const subjectToken = subject.token();
  // An AWS subject token may come back decoded: its request, signature and session token are secrets too.
  const decoded = file.source.kind === "aws" ? awsSubjectTokenSecrets(subjectToken) : [];
  const { clientId, clientSecret, workforcePoolUserProject } = file;
  return exchangeSubjectToken({
    tokenUrl,
    subjectToken,
    subjectTokenType: file.subjectTokenType,
    audience: file.audience,
    scopes,
    ...(workforcePoolUserProject ? { userProject: workforcePoolUserProject } : {}),
    ...(clientId !== undefined && clientSecret !== undefined ? { client: { id: clientId, secret: clientSecret } } : {}),
    secrets: [...decoded, ...subject.secrets],
  });
}

/** STS's token; through the file's service account (STS's token with cloud-platform, as google-auth-library asks) that account's. */
export async function federatedAccessToken(
  file: ExternalAccountFile,
  urls: ExternalAccountDestinations,
  subject: Subject,
  scopes: readonly string[],
): Promise<CachedAccessToken> {
  const target = file.impersonationTarget;
  if (urls.impersonationUrl === undefined || target === undefined)
    return bearerEntry(await federatedToken(file, urls.tokenUrl, subject, scopes), scopes);
  const federated = await federatedToken(file, urls.tokenUrl, subject, [CLOUD_PLATFORM_SCOPE]);
  const impersonated = await generateAccessToken({
    url: urls.impersonationUrl,
    target,
    sourceToken: federated.accessToken,
    delegates: [],
    scopes,
    ...(file.impersonationLifetimeSec ? { lifetimeSec: file.impersonationLifetimeSec } : {}),
  });
  return bearerEntry(impersonated, scopes);
}

/** What an ID token of the file's service account is asked with: its judged generateIdToken URL, the audience. */
export interface FederatedIdTokenRequest {
  idTokenUrl: string;
  target: string;
  audience: string;
  includeEmail: boolean;
}

/** STS's token (cloud-platform), then generateIdToken of the account the federated identity may act as. */
export async function federatedIdToken(
  file: ExternalAccountFile,
  tokenUrl: string,
  subject: Subject,
  request: FederatedIdTokenRequest,
): Promise<FetchedIdToken> {
  const federated = await federatedToken(file, tokenUrl, subject, [CLOUD_PLATFORM_SCOPE]);
  const { idTokenUrl: url, target, audience, includeEmail } = request;
  return generateIdToken({ url, target, sourceToken: federated.accessToken, delegates: [], audience, includeEmail });
}
