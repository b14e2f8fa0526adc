import { timingSafeEqual } from "node:crypto";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { authorizationError } from "./errors.js";

const MAX_PASTE_LENGTH = 4096;

/**
 * The code in what was pasted: `CODE~STATE` (a code page's), the redirect address or its query (with
 * this sign-in's `state`, else refused unsent), or a bare `CODE`, which this sign-in's PKCE verifier
 * still binds (RFC 9700's downgrade rule refuses another sign-in's code at the exchange).
 */
export function parsePastedCode(pasted: string, state: string): string {
  const text = pasted.trim();
  if (!text)
    throw new CredCredentialsError(
      "No authorization code was entered; run again and paste the code shown after sign-in.",
      { code: ERROR_CODES.INVALID_CODE },
    );
  if (text.length > MAX_PASTE_LENGTH)
    throw new CredCredentialsError("The pasted text is too long to be an authorization code; paste only the code.", {
      code: ERROR_CODES.INVALID_CODE,
    });
  const query = queryOf(text);
  if (!query) {
    if (/\s/.test(text))
      throw new CredCredentialsError(
        "The pasted text is not an authorization code (it has spaces); paste only the code.",
        { code: ERROR_CODES.INVALID_CODE },
      );
    return codeCarryingState(text, state);
  }
  const returnedState = query.get("state");
  if (returnedState === null) {
    throw new CredCredentialsError(
      "The pasted address carries no state, so it cannot be matched to this sign-in; paste the sign-in code shown on the page.",
      { code: ERROR_CODES.STATE_MISMATCH },
    );
  }
  if (!sameState(returnedState, state)) throw stateMismatch("address");
  const error = query.get("error");
  if (error !== null) throw authorizationError(error);
  const code = query.get("code");
  if (!code)
    throw new CredCredentialsError(
      "The pasted address carries no authorization code; paste the code shown after sign-in.",
      { code: ERROR_CODES.INVALID_CODE },
    );
  return code;
}

/** The code of a pasted `CODE~STATE` whose state is this sign-in's, or a bare code as it is. */
function codeCarryingState(text: string, state: string): string {
  const tilde = text.lastIndexOf("~");
  if (tilde < 0) return text;
  const code = text.slice(0, tilde);
  // Stryker disable next-line StringLiteral: stateMismatch tells only "address" apart; any other word is the sign-in code
  if (!sameState(text.slice(tilde + 1), state)) throw stateMismatch("sign-in code");
  if (!code)
    throw new CredCredentialsError(
      "The pasted sign-in code carries no authorization code; paste the whole code shown.",
    );
  return code;
}

function stateMismatch(what: "address" | "sign-in code"): CredCredentialsError {
  const message =
    what === "address"
      ? "The pasted address belongs to another sign-in (state mismatch); paste the one from the newest sign-in."
      : "The pasted sign-in code belongs to another sign-in (state mismatch); paste the one from the newest sign-in.";
  return new CredCredentialsError(message, { code: ERROR_CODES.STATE_MISMATCH });
}

function sameState(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The query of a pasted URL or query string; undefined for a bare code. */
function queryOf(text: string): URLSearchParams | undefined {
  if (/^https?:\/\//i.test(text)) {
    try {
      return new URL(text).searchParams;
    } catch {
      throw new CredCredentialsError("The pasted address is not a valid URL; paste the code or the whole address.", {
        code: ERROR_CODES.INVALID_CODE,
      });
    }
  }
  if (/(^|[?&])(code|error)=/.test(text)) return new URLSearchParams(text.replace(/^\?/, ""));
  return undefined;
}
