// The chain of service accounts to impersonate, as `--impersonate-service-account` and `impersonateServiceAccount`
// spell it; the command line checks it before any sign-in.
import { CredCredentialsError, ERROR_CODES } from "../errors.js";

/** Who to impersonate, and through whom: each delegate holds the token-creator role on the next. */
export interface ImpersonationChain {
  target: string;
  delegates: string[];
}

const SERVICE_ACCOUNT = /^[^\s@/,:]+@[^\s@/,:]+$/;

/** gcloud's order: `"A,B,TARGET"` impersonates TARGET through A then B (each holds the token-creator role on the next). */
export function parseImpersonationChain(value: string | readonly string[], what: string): ImpersonationChain {
  const accounts = (typeof value === "string" ? value.split(",") : [...value]).map((a) =>
    typeof a === "string" ? a.trim() : "",
  );
  // The entry itself is not quoted: on a command line, a secret pasted in the wrong place could be it.
  const bad = accounts.findIndex((a) => !SERVICE_ACCOUNT.test(a));
  if (accounts.length === 0 || bad !== -1)
    throw new CredCredentialsError(
      `${what} takes service account e-mails separated by commas (the last is impersonated, through the others in order); ${bad === -1 ? "none was given" : `entry ${bad + 1} is not one`}.`,
      { code: ERROR_CODES.INVALID_OPTION },
    );
  return { target: accounts[accounts.length - 1] as string, delegates: accounts.slice(0, -1) };
}
