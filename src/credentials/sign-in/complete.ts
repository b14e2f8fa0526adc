import type { UserRefreshClient } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { getPendingSignIn } from "../../oauth/pending.js";
import type { UserCredentialsOptions } from "../../options.js";
import { completeUserSignIn } from "./user.js";

/**
 * Completes the sign-in waiting in this process (a notebook's second cell): the code a code page showed, or the
 * whole address the browser ended on (`http://localhost:PORT/?state=…&code=…`), whose `state` is checked.
 *
 * ```ts
 * const credentials = await credAuth.completeSignIn("http://localhost:8080/?state=...&code=4/0Ab...");
 * ```
 *
 * Saved as {@link getUserCredentials} saves them (pass the first call's `credentialsCache`). A refused code leaves
 * the sign-in waiting for the right one.
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
