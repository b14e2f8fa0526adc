// An ID token from the GCE metadata server: `instance/service-accounts/default/identity`, with
// `format=full` so the token names the account (`email`, `email_verified`) as IAP and Cloud Run
// invoker checks need (google-auth-library's `Compute.fetchIdToken` asks the same). Asked the way
// every metadata request of cred-auth is (metadata.ts): the `Metadata-Flavor` header both ways,
// no redirect followed, 429 and 5xx retried. Reference: Compute Engine, "Verifying the identity
// of instances" (cloud.google.com/compute/docs/instances/verifying-instance-identity).
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { type FetchedIdToken, fetchedIdToken } from "../protocols/id-token-reply.js";
import { printable } from "../trust/text.js";
import { parseJson, statusError } from "./http.js";
import { METADATA_TIMEOUT_MS, metadataBaseUrl, metadataGetRetrying } from "./metadata.js";

/** An ID token of the metadata server's default account for `audience` (the server at `env`'s host). */
export async function metadataIdToken(audience: string, env: NodeJS.ProcessEnv): Promise<FetchedIdToken> {
  const base = metadataBaseUrl(env);
  const label = `The metadata server at ${new URL(base).host}`;
  const query = new URLSearchParams({ audience, format: "full" });
  const reply = await metadataGetRetrying(
    label,
    `${base}/instance/service-accounts/default/identity?${query}`,
    METADATA_TIMEOUT_MS,
  );
  if (reply.status === 404)
    throw new CredCredentialsError(
      `${label} has no service account to sign an ID token (HTTP 404); attach one to the VM or service.`,
      { code: ERROR_CODES.ID_TOKEN_UNSUPPORTED, status: 404 },
    );
  if (reply.status >= 500 || reply.status === 429 || reply.status === 408)
    throw statusError(label, "its identity endpoint", reply.status, "");
  if (reply.status !== 200)
    // The request carried no secret (an audience): the server's own words, made printable, say why.
    throw new CredCredentialsError(
      `${label} refused the ID-token request (HTTP ${reply.status}: ${printable(firstLine(reply.text))}).`,
      { status: reply.status },
    );
  return fetchedIdToken(reply.text, label, audience);
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.slice(0, 200) || "no message";
}

/**
 * The metadata server's default account and one of its access tokens' expiry, asked of the server
 * (`cred-auth status --check`): `.../default/email`, then `.../default/token`.
 */
export async function metadataAccountCheck(env: NodeJS.ProcessEnv): Promise<{ account: string; expiryDate: number }> {
  const base = metadataBaseUrl(env);
  const label = `The metadata server at ${new URL(base).host}`;
  const ask = async (path: string): Promise<string> => {
    const reply = await metadataGetRetrying(
      label,
      `${base}/instance/service-accounts/default/${path}`,
      METADATA_TIMEOUT_MS,
    );
    if (reply.status === 404)
      throw new CredCredentialsError(`${label} has no service account (HTTP 404); attach one to the VM or service.`, {
        code: ERROR_CODES.HOSTED_UNAVAILABLE,
        status: 404,
      });
    if (reply.status !== 200) throw statusError(label, `its ${path} path`, reply.status, "");
    return reply.text;
  };
  const account = printable((await ask("email")).trim().slice(0, 200));
  const body = parseJson(label, "its token path", await ask("token")) as { expires_in?: unknown } | null;
  const seconds = typeof body?.expires_in === "number" && Number.isFinite(body.expires_in) ? body.expires_in : 0;
  return { account, expiryDate: Date.now() + seconds * 1000 };
}
