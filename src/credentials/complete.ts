import type { UserRefreshClient } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { getPendingSignIn } from "../oauth/pending.js";
import type { UserCredentialsOptions } from "../options.js";
import { getUserCredentials } from "./user.js";

/**
 * Completes the copy-paste sign-in waiting in this process with the code its page showed:
 * the second cell of a notebook whose first cell showed the sign-in link and stopped with
 * `SignInPendingError` (a tslab cell cannot read input). No kernel restart is needed.
 *
 * ```ts
 * const credentials = await credAuth.completeSignIn("4/0Ab...");
 * ```
 *
 * The credentials are saved like {@link getUserCredentials} saves them: pass the first call's
 * `credentialsCache` (default {@link cache.READ_WRITE}). A rejected code leaves the sign-in
 * waiting, so the right one can still be pasted.
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
  return getUserCredentials(pending.scopes, { ...options, code });
}
