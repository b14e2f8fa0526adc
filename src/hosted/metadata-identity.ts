// What `cred-auth status --check` asks the GCE metadata server: its default account and a token's expiry.
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { printable } from "../trust/text.js";
import { parseJson, statusError } from "./http.js";
import { METADATA_TIMEOUT_MS, metadataBaseUrl, metadataGetRetrying } from "./metadata.js";

/** The metadata server's default account and its token's expiry (`status --check`). */
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
