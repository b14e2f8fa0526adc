import type { UserRefreshClient } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { getPendingSignIn } from "../../oauth/pending.js";
import type { UserCredentialsOptions } from "../../options.js";
import { completeUserSignIn } from "./user.js";

/**
 * Completes the sign-in waiting in this process: the second cell of a notebook whose first
 * cell showed the sign-in link and stopped with `SignInPendingError` (a tslab cell cannot read
 * input). No kernel restart is needed. It takes the code a code page showed (copy-paste flow),
 * or, in the loopback flow on a remote machine, the whole address of the error page the
 * browser ended on (`http://localhost:PORT/?state=…&code=…`): its `state` is checked, and an
 * address from a sign-in that a newer one replaced is refused with words that say so.
 *
 * ```ts
 * const credentials = await credAuth.completeSignIn("http://localhost:8080/?state=...&code=4/0Ab...");
 * ```
 *
 * The credentials are saved like {@link getUserCredentials} saves them: pass the first call's
 * `credentialsCache` (default {@link cache.READ_WRITE}). A refused code (wrong, already used or
 * expired) leaves the sign-in waiting, so the right one can still be pasted.
 *
 * @param code The code, or the whole address of the page that showed it.
 * @throws CredCredentialsError when no sign-in is waiting or the code is refused.
 */
export async function completeSignIn(
  code: string,
  options: Omit<UserCredentialsOptions, "code"> = {},
): Promise<UserRefreshClient> {
  const pending = getPendingSignIn();
  if (!pending) {
    throw new CredCredentialsError(
      "No sign-in is waiting for a code in this process; run the cell that signs in first, then paste the code it asks for.",
      { code: ERROR_CODES.NO_PENDING_SIGN_IN },
    );
  }
  return completeUserSignIn(code, options);
}
