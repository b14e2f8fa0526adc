// Credentials returned before their sign-in finished (a notebook's two-cell sign-in): the next cell's
// completeSignIn() finishes it; until then they fail with ERR_SIGN_IN_PENDING, saying what to run.
import type { UserRefreshClient } from "google-auth-library";
import { CredCancelledError, CredCredentialsError, type CredErrorCode, ERROR_CODES } from "../../errors.js";
import type { Endpoints } from "../../protocols/endpoints.js";
import { getCredentialInfo, recordClientSecrets, setCredentialInfo } from "../../protocols/info.js";
import { userRefreshClientFrom } from "../kinds/user/client.js";
import type { SignInResult } from "../../oauth/flow.js";
import { galCredentials } from "../../oauth/exchange.js";
import { type PendingSignIn, whyEnded } from "../../oauth/pending.js";
import type { FlowPlan } from "../../oauth/plan.js";
import { MESSAGES } from "../../messages.js";

/** Credentials waiting for their sign-in, and how the sign-in's tokens complete them. */
export interface PendingCredentials {
  /** What the first call returns: a `UserRefreshClient` without tokens until {@link fill}. */
  readonly credentials: UserRefreshClient;
  /** The sign-in they wait for, once it is known (its cancel makes them say so). */
  waitFor(pending: PendingSignIn): void;
  /** Gives them the sign-in's tokens: from then on they work as any user credentials. */
  fill(result: SignInResult): UserRefreshClient;
}

/** Credentials for the planned sign-in that fail, with words saying what to run, until it finishes. */
export async function pendingCredentials(flow: FlowPlan, env: NodeJS.ProcessEnv): Promise<PendingCredentials> {
  const { client, endpoints } = flow;
  // No refresh token yet: the one the sign-in brings replaces the empty one.
  const credentials = await userRefreshClientFrom(
    { type: "authorized_user", clientId: client.clientId, clientSecret: client.clientSecret, refreshToken: "" },
    { env },
  );
  let waitingFor: PendingSignIn | undefined;
  credentials.refreshHandler = async () => {
    throw notFinished(waitingFor);
  };
  return {
    credentials,
    waitFor(pending) {
      waitingFor = pending;
    },
    fill(result) {
      return complete(credentials, result, endpoints);
    },
  };
}

/** The error of credentials used before `completeSignIn` ran (or after their sign-in ended without tokens). */
function notFinished(pending: PendingSignIn | undefined): Error {
  const ended = pending && whyEnded(pending);
  if (ended) return endedError(ended);
  if (pending?.ended === "cancelled")
    return new CredCancelledError(`${MESSAGES.signInCancelled} ${MESSAGES.signInCellAgain}`);
  const what = pending?.mode === "paste" ? "code" : "address";
  return new CredCredentialsError(
    `These credentials are waiting for their sign-in: sign in with the link shown, then run const signedIn = await credAuth.completeSignIn("<the ${what}>"); in a new cell; they work from then on.`,
    { code: ERROR_CODES.SIGN_IN_PENDING },
  );
}

/** Why these credentials will never work, in the words of how their sign-in ended. */
function endedError(ended: Error): Error {
  if (ended instanceof CredCancelledError && ended.message === MESSAGES.signInReplaced)
    return new CredCancelledError("A newer sign-in replaced this one: use what the newest sign-in cell returned.");
  const words = `These credentials' sign-in ended: ${ended.message.split("\n")[0]}`;
  if (ended instanceof CredCancelledError) return new CredCancelledError(`${words} ${MESSAGES.signInCellAgain}`);
  const code = (ended as { code?: CredErrorCode }).code ?? ERROR_CODES.CREDENTIALS;
  return new CredCredentialsError(words, { code });
}

/** The sign-in's tokens into `credentials`, recorded as any user credentials cred-auth builds. */
function complete(credentials: UserRefreshClient, result: SignInResult, endpoints: Endpoints): UserRefreshClient {
  credentials.refreshHandler = undefined;
  // google-auth-library's UserRefreshClient refreshes with this (public, if underscored) field.
  credentials._refreshToken = result.refreshToken;
  credentials.setCredentials(galCredentials(result));
  const { clientId, clientSecret, refreshToken } = result;
  recordClientSecrets(credentials, { clientId, clientSecret, refreshToken });
  const info = getCredentialInfo(credentials);
  setCredentialInfo(credentials, {
    ...info,
    scopes: result.scopes,
    clientId: result.clientId,
    tokenUrl: info?.tokenUrl ?? endpoints.tokenUrl,
    ...(result.account ? { account: result.account } : {}),
  });
  return credentials;
}
