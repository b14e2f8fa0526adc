import type { AuthClient } from "google-auth-library";
import { codeOf, messageOf } from "../../util/thrown.js";
import { CredCancelledError, CredConnectionError, CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { tryHosted } from "../../hosted/registry.js";
import { SignInPendingError } from "../../oauth/pending.js";
import { assertValidScopes } from "../../oauth/scopes.js";
import type { DefaultOptions } from "../../options.js";
import { CLOUD_PLATFORM_SCOPE, ENV } from "../../shared/constants.js";
import { trustedUniverse } from "../../trust/urls.js";
import { debug } from "../../util/debug.js";
import { findApplicationDefaultCredentials } from "./adc.js";
import { impersonateProven, projectOfServiceAccount } from "../kinds/impersonated/client.js";
import { sharedResolution } from "./single-flight.js";
import { awaitsSignIn, endedShownSignIn, impersonationOf, userCredentialsFor } from "../sign-in/user.js";

/**
 * The hosted notebook's own credentials (Colab, ...), else ADC (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud's file,
 * the metadata server) proven by a token, else {@link getUserCredentials} with the same options.
 *
 * ```ts
 * import * as credAuth from "cred-auth";
 * const [credentials, projectId] = await credAuth.default(["https://www.googleapis.com/auth/cloud-platform"]);
 * ```
 *
 * @returns `[credentials, projectId]`: the service account's or platform's project, `null` for user credentials.
 * @throws CredCredentialsError "Could not get any valid credentials." with each step's reason; a sign-in that ran
 * and failed, or a service account that cannot be impersonated, throws its own error.
 * @throws CredConnectionError when a token server cannot be reached.
 * @throws CredCancelledError when `signal` aborts the sign-in.
 */
export async function defaultCredentials(
  scopes: readonly string[],
  options: DefaultOptions = {},
): Promise<[AuthClient, string | null]> {
  assertValidScopes(scopes); // before any hosted lookup or sign-in
  const { chain, rest } = impersonationOf(options);
  if (!chain) {
    const [credentials, projectId] = await sharedResolution(scopes, options, resolveDefault, awaitsSignIn);
    return [credentials, projectId];
  }
  // `impersonateServiceAccount`: what default() finds (cloud-platform) asks for the account's tokens.
  const [source, projectId] = await sharedResolution([CLOUD_PLATFORM_SCOPE], rest, resolveDefault, awaitsSignIn);
  const universe = trustedUniverse(process.env, rest.universeDomain);
  return [await impersonateProven(source, chain, scopes, universe), projectOfServiceAccount(chain.target) ?? projectId];
}

async function resolveDefault(
  scopes: readonly string[],
  options: DefaultOptions,
): Promise<[AuthClient, string | null]> {
  const env = process.env;
  const reasons: string[] = [];

  const hosted = await tryHosted(scopes, options.hosted ?? true, env);
  if (hosted.result) {
    debug(env, `hosted: using ${hosted.result.name}'s credentials`);
    return [hosted.result.credentials, hosted.result.projectId];
  }
  for (const attempt of hosted.attempts) reasons.push(`hosted ${attempt.name}: ${attempt.error.message}`);
  if (hosted.attempts.length === 0) debug(env, "hosted: no hosted notebook environment here (or CRED_AUTH_HOSTED=off)");

  const adc = await findApplicationDefaultCredentials(scopes, env, trustedUniverse(env, options.universeDomain));
  if (adc.found) {
    debug(env, `ADC: using Application Default Credentials from ${adc.found.source}`);
    return [adc.found.credentials, adc.found.projectId];
  }
  for (const reason of adc.reasons) debug(env, `ADC: ${reason}`);
  if (env[ENV.googleApplicationCredentials]?.trim()) {
    // The user pointed at a file on purpose: say why it was passed over, not only in debug output.
    process.emitWarning(
      `${adc.reasons[0] ?? `${ENV.googleApplicationCredentials} is unusable`} Falling back to user sign-in.`,
      { code: "CRED_AUTH_ADC" },
    );
  } else if (adc.passedOver !== undefined) {
    // A VM's credentials without a requested scope: the user hears why a sign-in follows.
    process.emitWarning(`ADC: ${adc.passedOver} Falling back to user sign-in.`, { code: "CRED_AUTH_ADC" });
  }
  reasons.push(...adc.reasons.map((reason) => `ADC: ${reason}`));

  try {
    return [await userCredentialsFor(scopes, options), null];
  } catch (error) {
    if (
      error instanceof SignInPendingError ||
      error instanceof CredCancelledError ||
      error instanceof CredConnectionError ||
      codeOf(error) === ERROR_CODES.INVALID_SCOPE || // a misspelt scope: its own line, whatever came before
      endedShownSignIn(error) // the sign-in ran and its face said how it ended: its own error, one line
    )
      throw error;
    reasons.push(`user sign-in: ${messageOf(error)}`);
    const lines = reasons.map((reason) => `- ${reason.replace(/\n/g, "\n  ")}`);
    throw new CredCredentialsError(["Could not get any valid credentials.", ...lines].join("\n"), {
      cause: error,
      code: ERROR_CODES.NO_CREDENTIALS,
    });
  }
}
