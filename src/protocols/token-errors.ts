import {
  CredAuthError,
  CredConnectionError,
  CredCredentialsError,
  type CredErrorCode,
  ERROR_CODES,
} from "../errors.js";
import { MIN_SECRET_LENGTH, REDACTED, basicForms, formDecoded, formsOf, scrub, scrubDeep } from "../trust/redact.js";
import { serverWords } from "../trust/text.js";
import { isEmulatorUrl, isLoopbackHostname } from "../trust/urls.js";
import { codeOfOAuthError, meaningOf, oauthErrorWord } from "./oauth-errors.js";
import { own } from "../trust/own.js";

/** What the caller was doing: a code exchange's errors mean other things than a refresh's. */
export type TokenStage = "exchange" | "refresh";

interface GoogleReply {
  error: string;
  description: string;
  subtype: string;
}

/**
 * The accurate message and code for one of Google's replies, by its `error`, its fixed
 * `error_description` texts and `error_subtype`. Undefined: the generic mapping applies.
 */
function specificFailure(reply: GoogleReply, stage: TokenStage | undefined): [string, CredErrorCode] | undefined {
  const { error, description } = reply;
  if (reply.subtype === "invalid_rapt" || description.includes("invalid_rapt")) {
    return [
      "your organisation requires you to sign in again (reauthentication, invalid_rapt); sign in again: run `cred-auth login`, or call getUserCredentials() again, and complete Google's sign-in in the browser",
      ERROR_CODES.REAUTH_REQUIRED,
    ];
  }
  const meaning = meaningOf(error);
  if (meaning?.refusesClient) {
    // The server's words, when they say more than ours (Google's are ours, capitalised, with a full stop).
    const words = serverWords(description);
    const said =
      words && words.toLowerCase() !== `${meaning.reply}.`.toLowerCase() ? ` (the server said: "${words}")` : "";
    return [
      `${meaning.reply}${said}; create or pick another client with \`cred-auth config init\`, then sign in again`,
      ERROR_CODES.INVALID_CLIENT,
    ];
  }
  if (error === "redirect_uri_mismatch") {
    return [
      "the redirect URI differs from the one the sign-in started with (redirect_uri_mismatch); start the sign-in again from the same application",
      ERROR_CODES.INVALID_CLIENT,
    ];
  }
  if (description === "Malformed auth code.") {
    return [
      "Google says the sign-in code is malformed; copy the whole code again, exactly as shown, or sign in again",
      ERROR_CODES.INVALID_GRANT,
    ];
  }
  if (
    description === "Invalid code verifier." ||
    description === "Missing code verifier." ||
    description === "code_verifier or verifier is not needed."
  ) {
    return [
      "the code belongs to another sign-in (its PKCE verifier does not match); paste the code of this sign-in, or sign in again",
      ERROR_CODES.INVALID_GRANT,
    ];
  }
  if (stage === "exchange" && error === "invalid_grant") {
    return [
      "the sign-in code was already used or has expired (codes work once, for 10 minutes); sign in again",
      ERROR_CODES.INVALID_GRANT,
    ];
  }
  // Otherwise the request's own grant_type says what was rejected (reasonFor): a refresh token,
  // a code or a service-account key; never blame a refresh token that was not sent.
  return undefined;
}

function googleReply(data: unknown): GoogleReply | undefined {
  const error = oauthErrorCode(data);
  if (!error) return undefined;
  const d = data as { error_description?: unknown; error_subtype?: unknown };
  const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 200) : "");
  return { error, description: text(d.error_description), subtype: text(d.error_subtype) };
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
]);

interface ErrorLike {
  code?: unknown;
  status?: unknown;
  response?: { status?: number; data?: unknown };
  cause?: unknown;
  name?: unknown;
  type?: unknown;
  config?: { url?: unknown };
}

/**
 * Maps what google-auth-library, gaxios or fetch threw while getting a token to a cred-auth
 * error. `what` says what we were doing, e.g. `Refreshing credentials from /path/file.json`.
 * Only the provider's error code and status are quoted: never a token, secret or body.
 */
export function toCredError(error: unknown, what: string, stage?: TokenStage): CredAuthError {
  if (error instanceof CredAuthError) return error;
  redactTokenRequestError(error);
  const e = (error ?? {}) as ErrorLike;
  const status = e.response?.status ?? (typeof e.status === "number" ? e.status : undefined);
  const reply = googleReply(e.response?.data);
  const oauthCode = reply?.error;
  // Google's temporary errors come inside a 400 too (5xx are handled below, with every other 5xx).
  if (reply && meaningOf(reply.error)?.temporary && (status === undefined || status < 500)) {
    return new CredConnectionError(
      `${what} failed: the token server answered ${status ?? "an error"} (${reply.error}); try again later.`,
      {
        cause: error,
        code: ERROR_CODES.SERVER_ERROR,
        error: reply.error,
        ...(status !== undefined ? { status } : {}),
      },
    );
  }
  const specific = reply && specificFailure(reply, stage);
  if (specific) {
    return new CredCredentialsError(`${what} failed: ${reply.error}: ${specific[0]}.`, {
      cause: error,
      code: specific[1],
      error: reply.error,
      ...(status !== undefined ? { status } : {}),
    });
  }
  if (oauthCode) {
    const reason = reasonFor(oauthCode, grantTypeOf(error));
    const answered = { error: oauthCode, ...(status !== undefined ? { status } : {}) };
    if (status !== undefined && status >= 500)
      return new CredConnectionError(
        `${what} failed: the token server answered ${status} (${oauthCode}); try again later.`,
        { cause: error, code: ERROR_CODES.SERVER_ERROR, status, error: oauthCode },
      );
    return new CredCredentialsError(`${what} failed: ${oauthCode}: ${reason}.`, {
      cause: error,
      code: codeOfOAuthError(oauthCode),
      ...answered,
    });
  }
  if (status !== undefined) {
    if (status >= 500 || status === 408 || status === 429) {
      return new CredConnectionError(`${what} failed: the token server answered HTTP ${status}; try again later.`, {
        cause: error,
        code: status === 408 ? ERROR_CODES.TIMEOUT : ERROR_CODES.SERVER_ERROR,
        status,
      });
    }
    return new CredCredentialsError(`${what} failed: the token server answered HTTP ${status}.`, {
      cause: error,
      status,
    });
  }
  const code = networkCode(error);
  const here = notAnsweringHere(requestUrlOf(error), code);
  if (here) return new CredConnectionError(`${what} failed: ${here}`, { cause: error, code: ERROR_CODES.UNREACHABLE });
  if (code)
    return new CredConnectionError(`${what} failed: could not reach the token server (${code}); check the network.`, {
      cause: error,
      code: code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT" ? ERROR_CODES.TIMEOUT : ERROR_CODES.UNREACHABLE,
    });
  if (isTimeout(error))
    return new CredConnectionError(`${what} failed: the token server did not answer in time; try again later.`, {
      cause: error,
      code: ERROR_CODES.TIMEOUT,
    });
  if (e.name === "SyntaxError" || (e.response && e.response.data === undefined)) {
    return new CredConnectionError(`${what} failed: the token server sent an unreadable reply.`, {
      cause: error,
      code: ERROR_CODES.SERVER_ERROR,
    });
  }
  return new CredCredentialsError(`${what} failed: ${describe(error)}.`, { cause: error });
}

/**
 * What a rejection means depends on what was asked for: `invalid_grant` names an expired or
 * revoked refresh token only for a refresh; for a code exchange it is the code, for a service
 * account the key or its signed assertion.
 */
const INVALID_GRANT_BY_GRANT: Record<string, string> = {
  refresh_token: "the refresh token is expired or revoked; sign in again",
  authorization_code:
    "the authorization code was not accepted (expired, already used, or from another sign-in); sign in again",
  "urn:ietf:params:oauth:grant-type:jwt-bearer":
    "the service account key was not accepted (deleted or disabled key, wrong client_email, or a wrong clock); check the key",
};

function reasonFor(oauthCode: string, grantType: string | undefined): string {
  if (oauthCode === "invalid_grant")
    return (grantType && own(INVALID_GRANT_BY_GRANT, grantType)) ?? "the token server did not accept the grant";
  return meaningOf(oauthCode)?.reply ?? "the provider rejected the credentials";
}

/** The `grant_type` of a failed request's kept request (kept through redaction: it is no secret). */
export function grantTypeOf(error: unknown): string | undefined {
  for (const link of chainOf(error)) {
    for (const config of [link.config, link.response?.config]) {
      if (!config || typeof config !== "object") continue;
      const c = config as { data?: unknown; body?: unknown };
      for (const body of [c.data, c.body]) {
        const grant = fieldsOf(body).find(([name]) => name === "grant_type")?.[1];
        if (grant) return grant;
      }
    }
  }
  return undefined;
}

function oauthErrorCode(data: unknown): string | undefined {
  return data && typeof data === "object" && "error" in data ? oauthErrorWord(data.error) : undefined;
}

/** What to do when the emulator (exactly its host and port, `isEmulatorUrl`) is the one not answering. */
export function emulatorNotAnswering(url: URL, code?: string): string {
  return `nothing answers at the emulator's address ${url.origin} (CRED_AUTH_EMULATOR_HOST${code ? `; ${code}` : ""}): start it with \`cred-auth emulator --port ${url.port || "80"}\`, or unset CRED_AUTH_EMULATOR_HOST to use Google.`;
}

/** The URL the failed request went to (gaxios keeps the request's `config.url`), when it parses. */
function requestUrlOf(error: unknown): URL | undefined {
  const url = String(
    causes(error)
      .map((e) => e.config?.url)
      .find((u) => u !== undefined),
  );
  return URL.canParse(url) ? new URL(url) : undefined;
}

/** The error and its causes, five deep (a chain may loop). */
function causes(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  for (let e = error as ErrorLike | undefined; e && chain.length < 5; e = e.cause as ErrorLike | undefined)
    chain.push(e);
  return chain;
}

/**
 * What to do when a connection to `url` was refused (network code `code`) and the network is not to
 * blame: the emulator (exactly `CRED_AUTH_EMULATOR_HOST`'s host and port) is not started, or,
 * elsewhere on this machine, the server the URL names is not running. Undefined for another code,
 * no URL, or a host elsewhere.
 */
export function notAnsweringHere(
  url: URL | undefined,
  code: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  // Refused: nothing listens there. Another failure (a reset, a timeout) means something is up.
  if (code !== "ECONNREFUSED" || url === undefined) return undefined;
  if (isEmulatorUrl(url, env)) return emulatorNotAnswering(url, code);
  if (!isLoopbackHostname(url.hostname)) return undefined;
  return `nothing answers at ${url.origin}, on this machine (${code}): start the token server it names, or correct the token URL (a credentials file's token_uri).`;
}

export function networkCode(error: unknown): string | undefined {
  return causes(error)
    .map((e) => e.code)
    .find((code): code is string => NETWORK_CODES.has(code as string));
}

/** gaxios reports a timed-out attempt as code `TimeoutError` with a DOMException of that name as cause. */
function isTimeout(error: unknown): boolean {
  return causes(error).some(
    (e) =>
      e.name === "AbortError" || e.name === "TimeoutError" || e.type === "request-timeout" || e.code === "TimeoutError",
  );
}

/** Request fields whose values are credentials. */
const SECRET_FIELDS = new Set([
  "refresh_token",
  "client_secret",
  "code",
  "code_verifier",
  "assertion",
  "client_assertion",
  "subject_token",
  "access_token",
  "token",
]);

interface ChainLink {
  message?: unknown;
  stack?: unknown;
  config?: unknown;
  response?: { config?: unknown; data?: unknown };
  cause?: unknown;
  error?: unknown;
}

/**
 * Makes a failed token request's error safe to log. gaxios errors keep the request
 * (`config.data`/`body`: refresh token, client secret, code, JWT assertion; `headers`:
 * Authorization), and their message and `response.data` are whatever the server replied,
 * which a misbehaving server or proxy may have filled with the request itself. Every value
 * in `secrets` and every credential found in the kept request is replaced, in every form
 * (trust/redact.ts, the redaction owner), in the messages, stacks and replies of the cause chain,
 * then the requests are blanked out.
 */
export function redactTokenRequestError(
  error: unknown,
  secrets: Iterable<string> = [],
  grantType: string | undefined = grantTypeOf(error),
): void {
  const links = chainOf(error);
  const found = new Set([...secrets].filter((s) => typeof s === "string" && s.length >= MIN_SECRET_LENGTH));
  for (const link of links) {
    collectSecrets(link.config, found);
    collectSecrets(link.response?.config, found);
  }
  const forms = formsOf(found);
  for (const link of links) {
    if (forms.length > 0) {
      replaceText(link, "message", forms);
      replaceText(link, "stack", forms);
      if (link.response && "data" in link.response) link.response.data = scrubDeep(link.response.data, forms);
    }
    redactConfig(link.config, grantType);
    redactConfig(link.response?.config, grantType);
  }
}

/** The error, its causes and gaxios' `error` twins, each once. */
function chainOf(error: unknown): ChainLink[] {
  const links: ChainLink[] = [];
  const pending: unknown[] = [error];
  while (pending.length > 0 && links.length < 10) {
    const e = pending.shift();
    if (!e || typeof e !== "object" || links.includes(e as ChainLink)) continue;
    links.push(e as ChainLink);
    pending.push((e as ChainLink).cause, (e as ChainLink).error);
  }
  return links;
}

/** Adds the credentials a kept request carried (body fields, Authorization header) to `found`. */
export function collectSecrets(config: unknown, found: Set<string>): void {
  if (!config || typeof config !== "object") return;
  const c = config as { data?: unknown; body?: unknown; headers?: unknown };
  for (const body of [c.data, c.body]) {
    const fields = fieldsOf(body);
    const clientId = fields.find(([name]) => name === "client_id")?.[1];
    for (const [name, value] of fields) {
      if (!SECRET_FIELDS.has(name) || value.length < MIN_SECRET_LENGTH) continue;
      found.add(value);
      // A proxy may move a client secret into a Basic header (RFC 6749 2.3.1) and echo that.
      if (name === "client_secret" && clientId !== undefined)
        for (const basic of basicForms(clientId, value)) found.add(basic);
    }
  }
  const authorization = c.headers instanceof Headers ? c.headers.get("authorization") : undefined;
  const credential = authorization?.replace(/^\s*\S+\s+/, "");
  if (credential && credential.length >= MIN_SECRET_LENGTH) {
    found.add(credential);
    const decoded = /^basic\s/i.test(authorization ?? "") ? Buffer.from(credential, "base64").toString("utf8") : "";
    const password = decoded.slice(decoded.indexOf(":") + 1);
    if (decoded.includes(":") && password.length >= MIN_SECRET_LENGTH) {
      found.add(password);
      found.add(formDecoded(password));
    }
  }
}

function fieldsOf(body: unknown): [string, string][] {
  if (body instanceof URLSearchParams) return [...body];
  if (typeof body === "string") {
    const text = body.trim();
    if (text.startsWith("{")) {
      try {
        return fieldsOf(JSON.parse(text));
      } catch {
        return [];
      }
    }
    return [...new URLSearchParams(text)];
  }
  if (body && typeof body === "object" && !Array.isArray(body)) {
    return Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === "string");
  }
  return [];
}

/** Scrubs one text property where it holds a secret (a DOMException's `message` is read-only, and never does). */
function replaceText(link: ChainLink, key: "message" | "stack", secrets: readonly string[]): void {
  const text = link[key];
  if (typeof text !== "string") return;
  const scrubbed = scrub(text, secrets);
  if (scrubbed === text) return;
  try {
    link[key] = scrubbed;
  } catch {
    // a read-only property: nothing we can do, and nothing of ours put the secret there
  }
}

function redactConfig(config: unknown, grantType: string | undefined): void {
  if (!config || typeof config !== "object") return;
  const c = config as { data?: unknown; body?: unknown; headers?: unknown };
  if (c.data !== undefined) c.data = redactedBody(grantType);
  if (c.body !== undefined) c.body = redactedBody(grantType);
  if (c.headers instanceof Headers) c.headers.delete("authorization");
}

/** Only the request's `grant_type` survives: it says what was rejected, and it is no secret. */
function redactedBody(grant: string | undefined): string {
  return grant && /^[\w:.-]{1,100}$/.test(grant) ? `grant_type=${encodeURIComponent(grant)}&${REDACTED}` : REDACTED;
}

/** The error's class name only: messages from below may quote request bodies. */
function describe(error: unknown): string {
  if (error instanceof Error) return `unexpected ${error.name}`;
  return "unexpected error";
}
