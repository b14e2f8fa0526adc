// Google's OAuth revoke endpoint: the token in the body, never the query (URLs end up in logs).
// Revoking ends the whole grant of that client and account.
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { parseObject } from "../formats/fields.js";
import { redactor } from "../trust/redact.js";
import { printable } from "../trust/text.js";
import { oauthErrorWord } from "./oauth-errors.js";
import { networkCode, notAnsweringHere } from "./token-errors.js";
import { MAX_SERVICE_REPLY_BYTES, SERVICE_TIMEOUT_MS } from "./service-request.js";
import { boundedFetch } from "../trust/http.js";

/**
 * Revokes `token` at the judged `url`; `where` names it ("Google", "the emulator at ..."). ERR_REVOKE_REFUSED
 * when refused (already revoked, expired, not a token); a CredConnectionError when unreachable.
 */
export async function revokeToken(url: string, token: string, where = "Google"): Promise<void> {
  const endpoint = where === "Google" ? "Google's revoke endpoint" : `The revoke endpoint of ${where}`;
  const reply = await boundedFetch(
    url,
    {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString(),
      timeoutMs: SERVICE_TIMEOUT_MS,
      maxBytes: MAX_SERVICE_REPLY_BYTES,
    },
    (cause) => {
      const here = notAnsweringHere(new URL(url), networkCode(cause));
      return new CredConnectionError(
        here
          ? `Nothing was revoked: ${here}`
          : `${endpoint} could not be reached, so nothing was revoked; check the network and retry.`,
        { code: ERROR_CODES.UNREACHABLE, cause },
      );
    },
  );
  if (reply.ok) return;
  const said = refusalWords(reply.text, token);
  if (reply.status >= 500 || reply.status === 429 || reply.status === 408)
    throw new CredConnectionError(
      `${endpoint} answered HTTP ${reply.status}${said.text}, so nothing was revoked; try again later.`,
      { code: ERROR_CODES.SERVER_ERROR, status: reply.status, error: said.error },
    );
  throw new CredCredentialsError(
    `${endpoint} refused the token (HTTP ${reply.status}${said.text}): it was already revoked or has expired, or it is not a token.`,
    { code: ERROR_CODES.REVOKE_REFUSED, status: reply.status, error: said.error },
  );
}

/** `: error (description)` from an OAuth error reply, the token scrubbed out in every form. */
function refusalWords(text: string, token: string): { error?: string; text: string } {
  const body = parseObject(text);
  const error = oauthErrorWord(body?.error);
  if (error === undefined) return { text: "" };
  const description = body?.error_description;
  const scrubbed =
    typeof description === "string" && description.trim() !== ""
      ? ` (${printable(redactor([token])(description).replace(/\s+/g, " ").slice(0, 200))})`
      : "";
  return { error, text: `: ${error}${scrubbed}` };
}
