import { HOSTED_PLATFORM_VARIABLES } from "../shared/hosted-platforms.js";
import type { Credentials } from "google-auth-library";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";
import { platformClient } from "./clients.js";
import { parseJson, platformFetch, projectIdFromEnv, statusError, tokenCredentials } from "./http.js";
import type { HostedEnvironment } from "./types.js";
import { type Redact, redactor } from "../trust/redact.js";
import { printable } from "../trust/text.js";

/** How long the user-secrets service may take to answer. */
export const KAGGLE_TIMEOUT_MS = 10_000;

const LABEL = "Kaggle";
const WHAT = "the user-secrets service";
const ATTACH = "attach it under Add-ons > Google Cloud Services in the notebook editor";

/** A Google Cloud service Kaggle hands out tokens for, one per request. */
export interface KaggleTarget {
  /** The `Target` number of the GetUserSecretRequest body. */
  id: 1 | 2 | 3;
  /** Its names in `KAGGLE_KERNEL_INTEGRATIONS`. */
  integrations: readonly string[];
  label: string;
}

export const KAGGLE_TARGETS: readonly KaggleTarget[] = [
  { id: 1, integrations: ["BIGQUERY"], label: "BigQuery" },
  { id: 2, integrations: ["GCS"], label: "Cloud Storage" },
  { id: 3, integrations: ["CLOUDAI", "AUTOML"], label: "Cloud AI" },
];

const SCOPE_PREFIX = "https://www.googleapis.com/auth/";

/** Kaggle (`KAGGLE_KERNEL_RUN_TYPE`, `KAGGLE_USER_SECRETS_TOKEN`): one attached service's token from user secrets. */
export function kaggleEnvironment(timeoutMs = KAGGLE_TIMEOUT_MS): HostedEnvironment {
  return {
    name: "kaggle",
    detect: (env) => Boolean(env[HOSTED_PLATFORM_VARIABLES.kaggle]) && Boolean(env.KAGGLE_USER_SECRETS_TOKEN),
    async credentials(scopes, env) {
      const target = chooseKaggleTarget(scopes, env.KAGGLE_KERNEL_INTEGRATIONS);
      const credentials = await platformClient(LABEL, () => fetchKaggleToken(target, env, timeoutMs));
      await credentials.getAccessToken(); // the first token proves the service answers
      return { credentials, projectId: projectIdFromEnv(env) };
    },
  };
}

export const kaggle = kaggleEnvironment();

/** The attached service (`KAGGLE_KERNEL_INTEGRATIONS`) whose token covers `scopes`: other APIs' scopes do not choose. */
export function chooseKaggleTarget(scopes: readonly string[], integrations: string | undefined): KaggleTarget {
  const attached = KAGGLE_TARGETS.filter((t) =>
    (integrations ?? "").split(":").some((name) => t.integrations.includes(name.trim().toUpperCase())),
  );
  if (attached.length === 0) {
    throw new CredCredentialsError(`${LABEL}: no Google Cloud service is attached to this notebook; ${ATTACH}.`, {
      code: ERROR_CODES.HOSTED_UNAVAILABLE,
    });
  }
  let wanted: readonly KaggleTarget[] = KAGGLE_TARGETS;
  for (const scope of scopes) {
    const fits = targetsForScope(scope);
    if (fits) wanted = wanted.filter((t) => fits.includes(t.id));
  }
  if (wanted.length === 0) {
    throw new CredCredentialsError(
      `${LABEL}: Kaggle gives a token for one service at a time, but these scopes need several (${scopes.join(" ")}); ask for one service's scopes per call.`,
      { code: ERROR_CODES.INVALID_SCOPE },
    );
  }
  const chosen = wanted.find((t) => attached.includes(t));
  if (!chosen) {
    const need = wanted.map((t) => t.label).join(" or ");
    const have = attached.map((t) => t.label).join(", ");
    throw new CredCredentialsError(
      `${LABEL}: the scopes need ${need}, but this notebook has only ${have} attached; ${ATTACH}.`,
      { code: ERROR_CODES.INVALID_SCOPE },
    );
  }
  return chosen;
}

/** The targets a scope can be served by; undefined when it does not constrain the choice. */
function targetsForScope(scope: string): readonly number[] | undefined {
  const name = scope.startsWith(SCOPE_PREFIX) ? scope.slice(SCOPE_PREFIX.length) : scope;
  if (/^bigquery(\.|$)/.test(name)) return [1];
  if (/^devstorage\./.test(name)) return [2];
  return undefined;
}

async function fetchKaggleToken(target: KaggleTarget, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Credentials> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "X-Kaggle-Authorization": `Bearer ${env.KAGGLE_USER_SECRETS_TOKEN ?? ""}`,
  };
  if (env.KAGGLE_IAP_TOKEN) headers.Authorization = `Bearer ${env.KAGGLE_IAP_TOKEN}`;
  const base = (env.KAGGLE_URL_BASE || "https://www.kaggle.com").replace(/\/+$/, "");
  const reply = await platformFetch(LABEL, WHAT, {
    url: `${base}/requests/GetUserSecretRequest`,
    method: "POST",
    headers,
    body: JSON.stringify({ Target: target.id }),
    timeoutMs,
  });
  if (reply.status === 401 || reply.status === 403) {
    throw new CredCredentialsError(
      `${LABEL}: ${WHAT} refused this notebook's user-secrets token (HTTP ${reply.status}); restart the session, and check that ${target.label} is still attached.`,
      { code: ERROR_CODES.HOSTED_UNAVAILABLE, status: reply.status },
    );
  }
  if (reply.status !== 200)
    throw statusError(LABEL, WHAT, reply.status, `check that ${target.label} is attached to the notebook.`);
  const body = parseJson(LABEL, WHAT, reply.text) as KaggleReply | null;
  if (body?.wasSuccessful !== true) {
    throw new CredConnectionError(
      `${LABEL}: ${WHAT} could not give a ${target.label} token${backendReason(body, redactor([env.KAGGLE_USER_SECRETS_TOKEN, env.KAGGLE_IAP_TOKEN]))}; ${ATTACH} again, or try later.`,
      { code: ERROR_CODES.SERVER_ERROR },
    );
  }
  const secret = body.result?.secret;
  if (typeof secret !== "string" || secret === "") {
    throw new CredConnectionError(`${LABEL}: ${WHAT} sent a reply without a token.`, {
      code: ERROR_CODES.SERVER_ERROR,
    });
  }
  return tokenCredentials(secret, body.result?.expiresInSeconds);
}

interface KaggleReply {
  wasSuccessful?: unknown;
  result?: { secret?: unknown; expiresInSeconds?: unknown };
  errors?: unknown;
}

/** The backend's first error string, short, printable, without the request's tokens (a backend may echo them). */
function backendReason(body: KaggleReply | null, redact: Redact): string {
  const first = Array.isArray(body?.errors) ? body.errors.find((e) => typeof e === "string") : undefined;
  return typeof first === "string" && first.trim() !== ""
    ? ` (it said: ${printable(redact(first).replace(/\s+/g, " ").trim().slice(0, 160))})`
    : "";
}
