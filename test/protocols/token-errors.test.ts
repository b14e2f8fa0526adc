// The token-request error mapping and its redaction, mutant by mutant: every secret form a reply
// may echo (raw, percent-encoded in either case, form-encoded, JSON-escaped, Basic) must be gone
// from messages, stacks, replies and the kept request, and each failure must map to its class.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "cred-auth";
import {
  notAnsweringHere,
  grantTypeOf,
  redactTokenRequestError,
  toCredError,
} from "../../dist/protocols/token-errors.js";

const REFRESH = "1//0gAbC+dEf/GhI=jkl";
const SECRET = "GOCSPX-a/b+c=d_eFgH";
const CODE = "4/0AeanS0b+x/y=z";
const ACCESS = "ya29.a0Af/h+Xy=z";
const REDACTED = "<redacted by cred-auth>";

type Link = {
  message: string;
  stack?: string;
  config?: Record<string, unknown>;
  response?: Record<string, unknown>;
  cause?: unknown;
  error?: unknown;
};
const gaxiosLike = (message: string, extra: Partial<Link> = {}): Error & Link =>
  Object.assign(new Error(message), extra) as Error & Link;

test("every secret form is scrubbed from message, stack and reply; the request keeps only its grant_type", () => {
  const forms = [
    REFRESH,
    encodeURIComponent(REFRESH),
    encodeURIComponent(REFRESH).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    new URLSearchParams([["x", SECRET]]).toString().slice(2),
    JSON.stringify(CODE).slice(1, -1),
    JSON.stringify(REFRESH).slice(1, -1).replaceAll("/", "\\/"),
    encodeURIComponent(encodeURIComponent(SECRET)),
  ];
  const body = new URLSearchParams({
    grant_type: "refresh_token",
    refresh_token: REFRESH,
    client_secret: SECRET,
    code: CODE,
  });
  const error = gaxiosLike(`echo: ${forms.join(" | ")}`, {
    config: { data: body.toString(), headers: new Headers({ authorization: `Bearer ${ACCESS}` }) },
    response: {
      status: 400,
      data: { error: "invalid_grant", echo: [forms.join(","), { deep: ACCESS }], n: 5, when: new Date(0) },
      config: { body: { refresh_token: REFRESH } },
    },
  });
  error.stack = `Error: ${REFRESH}\n    at ${SECRET}`;
  redactTokenRequestError(error);
  const all = `${error.message}\n${error.stack}\n${JSON.stringify(error.response)}\n${JSON.stringify(error.config)}`;
  for (const form of [...forms, ACCESS, SECRET, CODE]) assert.ok(!all.includes(form), `${form} left in ${all}`);
  assert.equal(error.message, `echo: ${forms.map(() => REDACTED).join(" | ")}`);
  assert.equal(error.stack, `Error: ${REDACTED}\n    at ${REDACTED}`);
  assert.equal(error.config?.data, `grant_type=refresh_token&${REDACTED}`);
  assert.equal((error.config as { headers: Headers }).headers.has("authorization"), false);
  const data = error.response?.data as { error: string; echo: unknown[]; n: number; when: unknown };
  assert.equal(data.error, "invalid_grant");
  assert.equal(data.n, 5);
  assert.ok(data.when instanceof Date, "objects that are not plain are left as they are");
  assert.deepEqual(data.echo[1], { deep: REDACTED });
  assert.equal((error.response as { config: { body: string } }).config.body, `grant_type=refresh_token&${REDACTED}`);
});

test("secrets are found in JSON, object and URLSearchParams bodies, in causes and in gaxios' error twin", () => {
  const inner = gaxiosLike(`inner ${SECRET}`, {
    config: { body: JSON.stringify({ client_secret: SECRET, assertion: "eyJhbGciOi.x.y" }) },
  });
  const twin = gaxiosLike(`twin ${CODE}`, { config: { data: { code: CODE, code_verifier: "v".repeat(43), n: 1 } } });
  const outer = gaxiosLike(`outer ${SECRET} ${CODE} eyJhbGciOi.x.y ${"v".repeat(43)}`, { cause: inner, error: twin });
  outer.config = { data: new URLSearchParams({ subject_token: "subject-token-123" }) };
  outer.message += " subject-token-123";
  redactTokenRequestError(outer);
  assert.equal(outer.message, `outer ${REDACTED} ${REDACTED} ${REDACTED} ${REDACTED} ${REDACTED}`);
  assert.equal(inner.message, `inner ${REDACTED}`);
  assert.equal(twin.message, `twin ${REDACTED}`);
  assert.equal(inner.config?.body, REDACTED);
  assert.equal(twin.config?.data, REDACTED);
});

test("short values and fields that are no secret stay; a malformed JSON body hides nothing it could not read", () => {
  const error = gaxiosLike("client abcdefghijk short 1234567 scope openid-profile-email", {
    config: {
      data: new URLSearchParams({
        client_id: "abcdefghijk",
        code: "1234567",
        scope: "openid-profile-email",
      }).toString(),
    },
  });
  redactTokenRequestError(error);
  assert.equal(error.message, "client abcdefghijk short 1234567 scope openid-profile-email");
  const broken = gaxiosLike(`x ${REFRESH}`, { config: { data: `{"refresh_token": "${REFRESH}"` } });
  redactTokenRequestError(broken, []);
  assert.equal(broken.message, `x ${REFRESH}`, "nothing was found in an unparsable body");
  assert.equal(broken.config?.data, REDACTED, "but the kept request is blanked all the same");
  const given = gaxiosLike(`y ${REFRESH} tiny7ch`);
  redactTokenRequestError(given, [REFRESH, "tiny7ch"]);
  assert.equal(given.message, `y ${REDACTED} tiny7ch`);
});

test("a Basic Authorization header: the credential, the password and the form-decoded password are scrubbed", () => {
  const password = "GOCSPX-p%2Fq%2Br";
  const basic = Buffer.from(`client-id.apps:${password}`).toString("base64");
  const error = gaxiosLike(`${basic} ${password} GOCSPX-p/q+r`, {
    config: { headers: new Headers({ Authorization: `Basic ${basic}` }) },
  });
  redactTokenRequestError(error);
  assert.equal(error.message, `${REDACTED} ${REDACTED} ${REDACTED}`);
  assert.equal((error.config as { headers: Headers }).headers.get("authorization"), null);
});

test("a client secret sent in the body is also scrubbed as the Basic header a proxy would make of it", () => {
  const basic = Buffer.from(`my-client.apps:${SECRET}`).toString("base64");
  const encoded = Buffer.from(`my-client.apps:${new URLSearchParams([["", SECRET]]).toString().slice(1)}`).toString(
    "base64",
  );
  const error = gaxiosLike(`${basic} ${encoded}`, {
    config: { data: { client_id: "my-client.apps", client_secret: SECRET } },
  });
  redactTokenRequestError(error);
  assert.equal(error.message, `${REDACTED} ${REDACTED}`);
});

test("grant_type is read from data or body of the error or its response, and survives redaction", () => {
  assert.equal(
    grantTypeOf(gaxiosLike("x", { config: { data: "grant_type=authorization_code&code=abc" } })),
    "authorization_code",
  );
  assert.equal(
    grantTypeOf(
      gaxiosLike("x", {
        response: { config: { body: { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer" } } },
      }),
    ),
    "urn:ietf:params:oauth:grant-type:jwt-bearer",
  );
  assert.equal(grantTypeOf(gaxiosLike("x", { config: { data: "code=abc" } })), undefined);
  assert.equal(grantTypeOf(undefined), undefined);
  const odd = gaxiosLike("x", { config: { data: "grant_type=a b&refresh_token=1//0gAbCdEfGh" } });
  redactTokenRequestError(odd);
  assert.equal(odd.config?.data, REDACTED, "a grant_type that is not a plain word is not kept");
});

test("toCredError maps OAuth errors by grant, statuses, network codes, timeouts and unreadable replies", () => {
  const reply = (status: number, data: unknown, grant = "refresh_token") =>
    gaxiosLike("x", { response: { status, data }, config: { data: `grant_type=${grant}&refresh_token=${REFRESH}` } });
  const check = (error: unknown, type: typeof CredConnectionError | typeof CredCredentialsError, message: string) => {
    const mapped = toCredError(error, "Refreshing");
    assert.ok(mapped instanceof type, `${mapped.constructor.name}: ${mapped.message}`);
    assert.equal(mapped.message, message);
    assert.equal((mapped as Error).cause, error);
  };
  check(
    reply(400, { error: "invalid_grant" }),
    CredCredentialsError,
    "Refreshing failed: invalid_grant: the refresh token is expired or revoked; sign in again.",
  );
  check(
    reply(400, { error: "invalid_grant" }, "authorization_code"),
    CredCredentialsError,
    "Refreshing failed: invalid_grant: the authorization code was not accepted (expired, already used, or from another sign-in); sign in again.",
  );
  check(
    reply(400, { error: "invalid_grant" }, "password"),
    CredCredentialsError,
    "Refreshing failed: invalid_grant: the token server did not accept the grant.",
  );
  check(
    reply(401, { error: "invalid_client" }),
    CredCredentialsError,
    "Refreshing failed: invalid_client: the OAuth client id or secret was rejected; create or pick another client with `cred-auth config init`, then sign in again.",
  );
  check(
    reply(400, { error: "weird_one" }),
    CredCredentialsError,
    "Refreshing failed: weird_one: the provider rejected the credentials.",
  );
  check(
    reply(503, { error: "internal_failure" }),
    CredConnectionError,
    "Refreshing failed: the token server answered 503 (internal_failure); try again later.",
  );
  check(
    reply(500, { error: "x" }),
    CredConnectionError,
    "Refreshing failed: the token server answered 500 (x); try again later.",
  );
  check(
    reply(499, { error: "Not-A-Code" }),
    CredCredentialsError,
    "Refreshing failed: the token server answered HTTP 499.",
  );
  check(
    reply(500, "<html>"),
    CredConnectionError,
    "Refreshing failed: the token server answered HTTP 500; try again later.",
  );
  check(reply(408, {}), CredConnectionError, "Refreshing failed: the token server answered HTTP 408; try again later.");
  check(reply(429, {}), CredConnectionError, "Refreshing failed: the token server answered HTTP 429; try again later.");
  check(reply(499, {}), CredCredentialsError, "Refreshing failed: the token server answered HTTP 499.");
  check(
    Object.assign(new Error("x"), { status: 502 }),
    CredConnectionError,
    "Refreshing failed: the token server answered HTTP 502; try again later.",
  );
  check(Object.assign(new Error("x"), { status: "502" }), CredCredentialsError, "Refreshing failed: unexpected Error.");
  const net = (code: string) => Object.assign(new Error("x"), { code });
  check(
    net("ECONNREFUSED"),
    CredConnectionError,
    "Refreshing failed: could not reach the token server (ECONNREFUSED); check the network.",
  );
  const deep = new Error("a", {
    cause: new Error("b", { cause: new Error("c", { cause: new Error("d", { cause: net("EAI_AGAIN") }) }) }),
  });
  check(
    deep,
    CredConnectionError,
    "Refreshing failed: could not reach the token server (EAI_AGAIN); check the network.",
  );
  const tooDeep = new Error("a", { cause: deep });
  check(tooDeep, CredCredentialsError, "Refreshing failed: unexpected Error.");
  const timeout = "Refreshing failed: the token server did not answer in time; try again later.";
  check(Object.assign(new Error("x"), { name: "AbortError" }), CredConnectionError, timeout);
  check(new Error("x", { cause: new DOMException("t", "TimeoutError") }), CredConnectionError, timeout);
  check(Object.assign(new Error("x"), { type: "request-timeout" }), CredConnectionError, timeout);
  check(Object.assign(new Error("x"), { code: "TimeoutError" }), CredConnectionError, timeout);
  const late = new Error("a", {
    cause: new Error("b", {
      cause: new Error("c", { cause: new Error("d", { cause: new Error("e", { cause: net("TimeoutError") }) }) }),
    }),
  });
  check(late, CredCredentialsError, "Refreshing failed: unexpected Error.");
  check(
    new SyntaxError("Unexpected token < in JSON"),
    CredConnectionError,
    "Refreshing failed: the token server sent an unreadable reply.",
  );
  check(
    gaxiosLike("x", { response: {} }),
    CredConnectionError,
    "Refreshing failed: the token server sent an unreadable reply.",
  );
  check(new TypeError(`boom ${REFRESH}`), CredCredentialsError, "Refreshing failed: unexpected TypeError.");
  check("a string", CredCredentialsError, "Refreshing failed: unexpected error.");
  const already = new CredCredentialsError("kept as is");
  assert.equal(toCredError(already, "Refreshing"), already);
  assert.equal(toCredError(null, "X").message, "X failed: unexpected error.");
});

// Every reply Google's token endpoint gives, with what each maps to: class, message, code, and the
// `error` and `status` a program branches on. Sources: Google's replies as recorded in
// google-auth-library-nodejs's and google-auth-library-python's tests; docs/troubleshooting.md.
type Expected = {
  type: typeof CredConnectionError | typeof CredCredentialsError;
  message: string;
  code: string;
  error?: string;
  status?: number;
};

function expectMapped(error: unknown, expected: Expected, stage?: "exchange" | "refresh"): void {
  const mapped = toCredError(error, "Signing in", stage) as CredCredentialsError;
  const label = `${expected.message} <- ${JSON.stringify((error as { response?: unknown }).response ?? error)}`;
  assert.ok(mapped instanceof expected.type, `${mapped.constructor.name}: ${mapped.message}; ${label}`);
  assert.equal(mapped.message, `Signing in failed: ${expected.message}`, label);
  assert.equal(mapped.code, expected.code, label);
  assert.equal(mapped.error, expected.error, label);
  assert.equal(mapped.status, expected.status, label);
  assert.equal(mapped.cause, error);
}

const googleReply = (status: number | undefined, data: unknown, grant = "refresh_token") =>
  gaxiosLike("Request failed", {
    response: { ...(status === undefined ? {} : { status }), data },
    config: { data: `grant_type=${encodeURIComponent(grant)}&refresh_token=${encodeURIComponent(REFRESH)}` },
  });

test("each OAuth error of a token reply: its reason, its code, and the error and status it carries", () => {
  const rejected = (error: string, reason: string, code: string, status = 400): [unknown, Expected] => [
    googleReply(status, { error }),
    { type: CredCredentialsError, message: `${error}: ${reason}.`, code, error, status },
  ];
  const cases: [unknown, Expected][] = [
    rejected("invalid_grant", "the refresh token is expired or revoked; sign in again", ERROR_CODES.INVALID_GRANT),
    rejected(
      "invalid_client",
      "the OAuth client id or secret was rejected; create or pick another client with `cred-auth config init`, then sign in again",
      ERROR_CODES.INVALID_CLIENT,
      401,
    ),
    rejected(
      "unauthorized_client",
      "this OAuth client may not use this grant; check the client type",
      ERROR_CODES.INVALID_CLIENT,
    ),
    rejected("invalid_scope", "a requested scope was rejected", ERROR_CODES.INVALID_SCOPE),
    rejected("access_denied", "access was denied", ERROR_CODES.ACCESS_DENIED, 403),
    rejected("invalid_request", "the token request was rejected as malformed", ERROR_CODES.CREDENTIALS),
    rejected("invalid_rapt", "the provider rejected the credentials", ERROR_CODES.REAUTH_REQUIRED),
    [
      googleReply(400, { error: "invalid_grant" }, "urn:ietf:params:oauth:grant-type:jwt-bearer"),
      {
        type: CredCredentialsError,
        message:
          "invalid_grant: the service account key was not accepted (deleted or disabled key, wrong client_email, or a wrong clock); check the key.",
        code: ERROR_CODES.INVALID_GRANT,
        error: "invalid_grant",
        status: 400,
      },
    ],
    [
      gaxiosLike("x", { response: { data: { error: "invalid_scope" } } }),
      {
        type: CredCredentialsError,
        message: "invalid_scope: a requested scope was rejected.",
        code: ERROR_CODES.INVALID_SCOPE,
        error: "invalid_scope",
      },
    ],
  ];
  for (const [error, expected] of cases) expectMapped(error, expected);
});

test("Google's temporary errors inside a 400 are connection errors to retry; inside a 5xx too", () => {
  for (const error of ["internal_failure", "server_error", "temporarily_unavailable", "rate_limit_exceeded"]) {
    expectMapped(googleReply(400, { error }), {
      type: CredConnectionError,
      message: `the token server answered 400 (${error}); try again later.`,
      code: ERROR_CODES.SERVER_ERROR,
      error,
      status: 400,
    });
    expectMapped(googleReply(503, { error }), {
      type: CredConnectionError,
      message: `the token server answered 503 (${error}); try again later.`,
      code: ERROR_CODES.SERVER_ERROR,
      error,
      status: 503,
    });
    expectMapped(gaxiosLike("x", { response: { data: { error } } }), {
      type: CredConnectionError,
      message: `the token server answered an error (${error}); try again later.`,
      code: ERROR_CODES.SERVER_ERROR,
      error,
    });
  }
  expectMapped(googleReply(499, { error: "server_error" }), {
    type: CredConnectionError,
    message: "the token server answered 499 (server_error); try again later.",
    code: ERROR_CODES.SERVER_ERROR,
    error: "server_error",
    status: 499,
  });
  expectMapped(googleReply(500, { error: "invalid_grant" }), {
    type: CredConnectionError,
    message: "the token server answered 500 (invalid_grant); try again later.",
    code: ERROR_CODES.SERVER_ERROR,
    error: "invalid_grant",
    status: 500,
  });
});

test("Google's own error texts get their own message: reauth, redirect URI, malformed code, PKCE, a used code", () => {
  const reauth =
    "your organisation requires you to sign in again (reauthentication, invalid_rapt); sign in again: run `cred-auth login`, or call getUserCredentials() again, and complete Google's sign-in in the browser";
  const pkce =
    "the code belongs to another sign-in (its PKCE verifier does not match); paste the code of this sign-in, or sign in again";
  const specific = (data: Record<string, unknown>, reason: string, code: string, status = 400): [unknown, Expected] => [
    googleReply(status, data, "authorization_code"),
    { type: CredCredentialsError, message: `${data.error}: ${reason}.`, code, error: data.error as string, status },
  ];
  const cases: [unknown, Expected][] = [
    specific(
      { error: "invalid_grant", error_description: "reauth related error (invalid_rapt)" },
      reauth,
      ERROR_CODES.REAUTH_REQUIRED,
    ),
    specific(
      { error: "invalid_grant", error_description: "Bad Request", error_subtype: "invalid_rapt" },
      reauth,
      ERROR_CODES.REAUTH_REQUIRED,
    ),
    specific(
      { error: "redirect_uri_mismatch", error_description: "Bad Request" },
      "the redirect URI differs from the one the sign-in started with (redirect_uri_mismatch); start the sign-in again from the same application",
      ERROR_CODES.INVALID_CLIENT,
    ),
    specific(
      { error: "invalid_grant", error_description: "Malformed auth code." },
      "Google says the sign-in code is malformed; copy the whole code again, exactly as shown, or sign in again",
      ERROR_CODES.INVALID_GRANT,
    ),
    specific({ error: "invalid_grant", error_description: "Invalid code verifier." }, pkce, ERROR_CODES.INVALID_GRANT),
    specific({ error: "invalid_grant", error_description: "Missing code verifier." }, pkce, ERROR_CODES.INVALID_GRANT),
    specific(
      { error: "invalid_request", error_description: "code_verifier or verifier is not needed." },
      pkce,
      ERROR_CODES.INVALID_GRANT,
    ),
  ];
  for (const [error, expected] of cases) expectMapped(error, expected);
  // A refused client: the server's words when they add to ours (printable, on one line), and the next step.
  const next = "; create or pick another client with `cred-auth config init`, then sign in again";
  const client = (data: Record<string, unknown>, reason: string): [unknown, Expected] => [
    googleReply(401, data, "refresh_token"),
    {
      type: CredCredentialsError,
      message: `${data.error}: ${reason}${next}.`,
      code: ERROR_CODES.INVALID_CLIENT,
      error: data.error as string,
      status: 401,
    },
  ];
  for (const [error, expected] of [
    client(
      { error: "deleted_client", error_description: "The OAuth client was deleted." },
      "the OAuth client was deleted",
    ),
    client(
      { error: "disabled_client", error_description: "The OAuth client was disabled." },
      "the OAuth client was disabled",
    ),
    client({ error: "deleted_client" }, "the OAuth client was deleted"),
    client(
      { error: "deleted_client", error_description: "Deleted by\nits owner \u001b]0;x\u0007" },
      'the OAuth client was deleted (the server said: "Deleted by its owner \\x1b]0;x\\x07")',
    ),
    client(
      { error: "disabled_client", error_description: `echoed ${REFRESH}` },
      `the OAuth client was disabled (the server said: "echoed ${REDACTED}")`,
    ),
    client(
      { error: "invalid_client", error_description: "Unauthorized" },
      'the OAuth client id or secret was rejected (the server said: "Unauthorized")',
    ),
  ])
    expectMapped(error, expected);
  // A description is read up to 200 characters: a marker further on is not Google's text.
  expectMapped(googleReply(400, { error: "invalid_grant", error_description: `${"x".repeat(200)}invalid_rapt` }), {
    type: CredCredentialsError,
    message: "invalid_grant: the refresh token is expired or revoked; sign in again.",
    code: ERROR_CODES.INVALID_GRANT,
    error: "invalid_grant",
    status: 400,
  });
  expectMapped(googleReply(400, { error: "invalid_grant", error_subtype: 7, error_description: 7 }), {
    type: CredCredentialsError,
    message: "invalid_grant: the refresh token is expired or revoked; sign in again.",
    code: ERROR_CODES.INVALID_GRANT,
    error: "invalid_grant",
    status: 400,
  });
});

test("a used or expired code is blamed on the code in an exchange, on the grant otherwise", () => {
  const used = {
    type: CredCredentialsError,
    message:
      "invalid_grant: the sign-in code was already used or has expired (codes work once, for 10 minutes); sign in again.",
    code: ERROR_CODES.INVALID_GRANT,
    error: "invalid_grant",
    status: 400,
  };
  expectMapped(googleReply(400, { error: "invalid_grant" }, "authorization_code"), used, "exchange");
  expectMapped(googleReply(400, { error: "invalid_grant" }, "refresh_token"), used, "exchange");
  expectMapped(
    googleReply(400, { error: "invalid_grant" }, "refresh_token"),
    {
      ...used,
      message: "invalid_grant: the refresh token is expired or revoked; sign in again.",
    },
    "refresh",
  );
  expectMapped(
    googleReply(400, { error: "invalid_client" }, "authorization_code"),
    {
      ...used,
      message:
        "invalid_client: the OAuth client id or secret was rejected; create or pick another client with `cred-auth config init`, then sign in again.",
      code: ERROR_CODES.INVALID_CLIENT,
      error: "invalid_client",
    },
    "exchange",
  );
});

test("statuses without an OAuth error, and network failures: each its class and code", () => {
  const http = (status: number, type: Expected["type"], code: string, retry: boolean): [unknown, Expected] => [
    googleReply(status, "<html>"),
    {
      type,
      message: `the token server answered HTTP ${status}${retry ? "; try again later" : ""}.`,
      code,
      status,
    },
  ];
  const cases: [unknown, Expected][] = [
    http(408, CredConnectionError, ERROR_CODES.TIMEOUT, true),
    http(429, CredConnectionError, ERROR_CODES.SERVER_ERROR, true),
    http(500, CredConnectionError, ERROR_CODES.SERVER_ERROR, true),
    http(599, CredConnectionError, ERROR_CODES.SERVER_ERROR, true),
    http(404, CredCredentialsError, ERROR_CODES.CREDENTIALS, false),
    http(499, CredCredentialsError, ERROR_CODES.CREDENTIALS, false),
  ];
  for (const [error, expected] of cases) expectMapped(error, expected);
  const timeouts = new Set(["ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT"]);
  // What Node's net, dns and undici report when a server cannot be reached.
  const unreachable = "ECONNREFUSED ECONNRESET ENOTFOUND EAI_AGAIN ETIMEDOUT EHOSTUNREACH ENETUNREACH EPIPE";
  for (const code of [...unreachable.split(" "), "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_SOCKET"]) {
    expectMapped(Object.assign(new Error("x"), { code }), {
      type: CredConnectionError,
      message: `could not reach the token server (${code}); check the network.`,
      code: timeouts.has(code) ? ERROR_CODES.TIMEOUT : ERROR_CODES.UNREACHABLE,
    });
  }
  expectMapped(Object.assign(new Error("x"), { name: "TimeoutError" }), {
    type: CredConnectionError,
    message: "the token server did not answer in time; try again later.",
    code: ERROR_CODES.TIMEOUT,
  });
  expectMapped(Object.assign(new Error("x"), { code: "EWHATEVER" }), {
    type: CredCredentialsError,
    message: "unexpected Error.",
    code: ERROR_CODES.CREDENTIALS,
  });
});

const messageAfter = (error: Error & Link, secrets?: unknown[]) => {
  redactTokenRequestError(error, secrets as string[] | undefined);
  return error.message;
};

test("secrets handed in are scrubbed from 8 characters on; shorter ones and non-strings are left alone", () => {
  assert.equal(messageAfter(gaxiosLike("a 12345678 b"), ["12345678"]), `a ${REDACTED} b`);
  assert.equal(messageAfter(gaxiosLike("a 1234567 b"), ["1234567"]), "a 1234567 b");
  assert.equal(messageAfter(gaxiosLike("a 12345678 b"), [12345678, undefined]), "a 12345678 b");
});

test("the longest form is scrubbed first: a secret inside a longer one leaves no tail behind", () => {
  const short = "1//0gShortOne";
  const long = `${short}+AndItsTail/==`;
  for (const order of [
    [short, long],
    [long, short],
  ])
    assert.equal(messageAfter(gaxiosLike(`token ${long} end`), order), `token ${REDACTED} end`);
});

test("a reply with nothing to scrub is left as it was, the very same object", () => {
  const data = { error: "invalid_grant", nested: { a: "b" } };
  const error = gaxiosLike("x", { response: { status: 400, data } });
  redactTokenRequestError(error);
  assert.equal(error.response?.data, data);
  const withSecret = gaxiosLike("x", {
    response: { status: 400, data: { echo: REFRESH } },
    config: { data: `grant_type=refresh_token&refresh_token=${encodeURIComponent(REFRESH)}` },
  });
  redactTokenRequestError(withSecret);
  assert.deepEqual(withSecret.response?.data, { echo: REDACTED });
});

test("the cause chain is read ten links deep, cycles included, and no further", () => {
  const links = Array.from({ length: 12 }, (_, i) => gaxiosLike(`link ${i} ${REFRESH}`));
  for (let i = 0; i < links.length - 1; i++) links[i].cause = links[i + 1];
  redactTokenRequestError(links[0], [REFRESH]);
  assert.deepEqual(
    links.map((link) => link.message.includes(REFRESH)),
    [...Array(10).fill(false), true, true],
  );
  const cycle = gaxiosLike(`a ${REFRESH}`);
  cycle.cause = cycle;
  cycle.error = gaxiosLike(`b ${REFRESH}`, { cause: cycle });
  redactTokenRequestError(cycle, [REFRESH]);
  assert.equal(cycle.message, `a ${REDACTED}`);
  assert.equal((cycle.error as Error).message, `b ${REDACTED}`);
});

test("Authorization headers: a bearer token, a Basic password raw and form-decoded; short ones are no secret", () => {
  const withHeader = (value: string, message: string) =>
    messageAfter(gaxiosLike(message, { config: { headers: new Headers({ Authorization: value }) } }));
  assert.equal(withHeader(`Bearer ${ACCESS}`, `saw ${ACCESS}`), `saw ${REDACTED}`);
  assert.equal(withHeader(`  bearer   ${ACCESS}`, `saw ${ACCESS}`), `saw ${REDACTED}`);
  assert.equal(withHeader("Bearer short", "saw short"), "saw short");
  const basic = (password: string) => `basic ${Buffer.from(`client-id:${password}`).toString("base64")}`;
  assert.equal(withHeader(basic("GOCSPX-a%2Bb+c%2Fd"), "saw GOCSPX-a+b c/d"), `saw ${REDACTED}`);
  assert.equal(withHeader(basic("GOCSPX-%zz+abc"), "saw GOCSPX-%zz+abc"), `saw ${REDACTED}`, "undecodable: raw");
  assert.equal(withHeader(basic("short"), "saw short"), "saw short");
  assert.equal(
    withHeader(`Basic ${Buffer.from("no-colon-at-all").toString("base64")}`, "saw no-colon-at-all"),
    "saw no-colon-at-all",
  );
  const headers = new Headers({ Authorization: `Bearer ${ACCESS}` });
  redactTokenRequestError(gaxiosLike("x", { config: { headers } }));
  assert.equal(headers.get("authorization"), null, "the header itself is removed");
});

test("request bodies: JSON with leading space, malformed JSON, body without data: each field kept where it was", () => {
  assert.equal(
    messageAfter(gaxiosLike(`saw ${REFRESH}`, { config: { data: `  {"refresh_token":${JSON.stringify(REFRESH)}}` } })),
    `saw ${REDACTED}`,
  );
  const malformed = gaxiosLike("saw {", { config: { data: '{"refresh_token": "1//0gAbC' } });
  assert.equal(messageAfter(malformed), "saw {");
  const config: Record<string, unknown> = {
    body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(REFRESH)}`,
  };
  redactTokenRequestError(gaxiosLike("x", { config }));
  assert.deepEqual(config, { body: `grant_type=refresh_token&${REDACTED}` });
  const onlyData: Record<string, unknown> = { data: "grant_type=refresh_token" };
  redactTokenRequestError(gaxiosLike("x", { config: onlyData }));
  assert.deepEqual(onlyData, { data: `grant_type=refresh_token&${REDACTED}` });
});

test("links without a string stack or message, and replies nested deep, are scrubbed without failing", () => {
  const plain = { message: `saw ${REFRESH}`, stack: 5 } as unknown as Error & Link;
  redactTokenRequestError(gaxiosLike("x", { cause: plain }), [REFRESH]);
  assert.equal(plain.message, `saw ${REDACTED}`);
  assert.equal(plain.stack, 5);
  let deep: unknown = REFRESH;
  for (let i = 0; i < 12; i++) deep = { inner: deep };
  let shallow: unknown = REFRESH;
  for (let i = 0; i < 8; i++) shallow = [shallow];
  const error = gaxiosLike("x", { response: { data: { deep, shallow, none: null, date: new Date(0) } } });
  redactTokenRequestError(error, [REFRESH]);
  const data = error.response?.data as { deep: unknown; shallow: unknown; none: unknown; date: unknown };
  assert.equal(JSON.stringify(data.shallow).includes(REFRESH), false, "8 levels down is scrubbed");
  assert.equal(JSON.stringify(data.deep).includes(REFRESH), true, "deeper than 9 levels is left (a bound)");
  assert.equal(data.none, null);
  assert.ok(data.date instanceof Date, "objects not plain are left as they are");
});

test("toCredError scrubs the error it wraps: the cause a caller logs holds no secret", () => {
  const error = gaxiosLike(`request failed: refresh_token=${REFRESH}`, {
    config: { data: `grant_type=refresh_token&refresh_token=${encodeURIComponent(REFRESH)}` },
  });
  const mapped = toCredError(error, "Refreshing");
  assert.equal((mapped.cause as Error).message, `request failed: refresh_token=${REDACTED}`);
  assert.deepEqual(error.config, { data: `grant_type=refresh_token&${REDACTED}` });
});

test("every credential field of a request body is a secret: assertions, tokens, codes, verifiers", () => {
  const fields = "refresh_token client_secret code code_verifier assertion client_assertion subject_token access_token";
  for (const field of [...fields.split(" "), "token"]) {
    const value = `${CODE}-${field}`;
    const error = gaxiosLike(`saw ${value}`, { config: { data: { [field]: value } } });
    assert.equal(messageAfter(error), `saw ${REDACTED}`, field);
  }
  assert.equal(
    messageAfter(gaxiosLike("saw client-id-12345", { config: { data: { client_id: "client-id-12345" } } })),
    "saw client-id-12345",
  );
});

test("a Basic password is scrubbed as sent, not only form-decoded", () => {
  const password = "GOCSPX-plainPassword";
  const headers = new Headers({ Authorization: `Basic ${Buffer.from(`id:${password}`).toString("base64")}` });
  assert.equal(messageAfter(gaxiosLike(`saw ${password}`, { config: { headers } })), `saw ${REDACTED}`);
});

test("a refused connection to the emulator (exactly CRED_AUTH_EMULATOR_HOST's host and port) names it and how to start it; another address on this machine is named as such; anything else is the network", (t) => {
  const saved = process.env.CRED_AUTH_EMULATOR_HOST;
  t.after(() => {
    if (saved === undefined) delete process.env.CRED_AUTH_EMULATOR_HOST;
    else process.env.CRED_AUTH_EMULATOR_HOST = saved;
  });
  const at = (url: unknown, code: string, depth = 0) => {
    let error: unknown = Object.assign(new Error("x"), { code, config: { url } });
    for (let i = 0; i < depth; i++) error = new Error("wrap", { cause: error });
    return toCredError(error, "Refreshing");
  };
  const emulator =
    "Refreshing failed: nothing answers at the emulator's address http://127.0.0.1:9099 (CRED_AUTH_EMULATOR_HOST; ECONNREFUSED): start it with `cred-auth emulator --port 9099`, or unset CRED_AUTH_EMULATOR_HOST to use Google.";
  const generic = (code: string) => `Refreshing failed: could not reach the token server (${code}); check the network.`;
  const local = (origin: string) =>
    `Refreshing failed: nothing answers at ${origin}, on this machine (ECONNREFUSED): start the token server it names, or correct the token URL (a credentials file's token_uri).`;
  delete process.env.CRED_AUTH_EMULATOR_HOST;
  assert.equal(
    at("http://127.0.0.1:9099/token", "ECONNREFUSED").message,
    local("http://127.0.0.1:9099"),
    "no emulator set",
  );
  assert.equal(at("http://127.0.0.1:9099/token", "ECONNREFUSED").code, ERROR_CODES.UNREACHABLE);
  assert.ok(at("http://127.0.0.1:9099/token", "ECONNREFUSED") instanceof CredConnectionError);
  assert.equal(at("https://127.8.9.10/token", "ECONNREFUSED", 2).message, local("https://127.8.9.10"), "127.0.0.0/8");
  assert.equal(at("http://[::1]:8080/token", "ECONNREFUSED").message, local("http://[::1]:8080"));
  assert.equal(at("http://localhost:8080/token", "ECONNREFUSED").message, local("http://localhost:8080"));
  assert.equal(at("http://127.0.0.1:9099/token", "ECONNRESET").message, generic("ECONNRESET"), "something answered");
  assert.equal(at("http://128.0.0.1/token", "ECONNREFUSED").message, generic("ECONNREFUSED"), "not this machine");
  assert.equal(at("http://oauth2.example/token", "ECONNREFUSED").message, generic("ECONNREFUSED"), "not this machine");
  process.env.CRED_AUTH_EMULATOR_HOST = "127.0.0.1:9099";
  for (const url of ["http://127.0.0.1:9099/token", new URL("http://127.0.0.1:9099/token")]) {
    const mapped = at(url, "ECONNREFUSED");
    assert.ok(mapped instanceof CredConnectionError);
    assert.equal(mapped.code, ERROR_CODES.UNREACHABLE);
    assert.equal(mapped.message, emulator);
  }
  assert.equal(at("http://127.0.0.1:9099/token", "ECONNREFUSED", 3).message, emulator, "found down the cause chain");
  process.env.CRED_AUTH_EMULATOR_HOST = "localhost:9099";
  assert.equal(
    at("http://localhost:9099/token", "ECONNREFUSED").message,
    "Refreshing failed: nothing answers at the emulator's address http://localhost:9099 (CRED_AUTH_EMULATOR_HOST; ECONNREFUSED): start it with `cred-auth emulator --port 9099`, or unset CRED_AUTH_EMULATOR_HOST to use Google.",
  );
  process.env.CRED_AUTH_EMULATOR_HOST = "127.0.0.1:9099";
  assert.equal(
    at("http://127.0.0.1:9099/token", "ECONNRESET").message,
    generic("ECONNRESET"),
    "it answered, then reset",
  );
  assert.equal(
    at("http://127.0.0.1:9100/token", "ECONNREFUSED").message,
    local("http://127.0.0.1:9100"),
    "another local port",
  );
  assert.equal(
    at("http://localhost:9099/token", "ECONNREFUSED").message,
    local("http://localhost:9099"),
    "another name",
  );
  assert.equal(
    at("https://127.0.0.1:9099/token", "ECONNREFUSED").message,
    local("https://127.0.0.1:9099"),
    "not plain http",
  );
  assert.equal(at("http://oauth2.example/token", "ECONNREFUSED").message, generic("ECONNREFUSED"), "not this machine");
  assert.equal(at("not a url", "ECONNREFUSED").message, generic("ECONNREFUSED"));
  assert.equal(at(undefined, "ECONNREFUSED").message, generic("ECONNREFUSED"));
  process.env.CRED_AUTH_EMULATOR_HOST = "not a host";
  assert.equal(
    at("http://127.0.0.1:9099/token", "ECONNREFUSED").message,
    local("http://127.0.0.1:9099"),
    "an unusable variable",
  );
});

test("the refused URL is looked for five errors deep, as the network code is; deeper it is not the request's", () => {
  const local =
    "Refreshing failed: nothing answers at http://127.0.0.1:9100, on this machine (ECONNREFUSED): start the token server it names, or correct the token URL (a credentials file's token_uri).";
  const refusedAbove = (urlDepth: number) => {
    let inner: unknown = Object.assign(new Error("request"), { config: { url: "http://127.0.0.1:9100/token" } });
    for (let i = 1; i < urlDepth; i++) inner = new Error("wrap", { cause: inner });
    return toCredError(Object.assign(new Error("refused"), { code: "ECONNREFUSED", cause: inner }), "Refreshing");
  };
  assert.equal(refusedAbove(4).message, local, "the fifth error of the chain");
  assert.equal(
    refusedAbove(5).message,
    "Refreshing failed: could not reach the token server (ECONNREFUSED); check the network.",
    "the sixth is beyond the chain looked at",
  );
});

test("notAnsweringHere: the emulator (exactly its host and port), another address on this machine, or nothing for a host elsewhere", () => {
  const env = { CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9099" };
  const here = (url: string, environment: NodeJS.ProcessEnv = env) =>
    notAnsweringHere(new URL(url), "ECONNREFUSED", environment);
  assert.equal(
    here("http://127.0.0.1:9099/revoke"),
    "nothing answers at the emulator's address http://127.0.0.1:9099 (CRED_AUTH_EMULATOR_HOST; ECONNREFUSED): start it with `cred-auth emulator --port 9099`, or unset CRED_AUTH_EMULATOR_HOST to use Google.",
  );
  const local = (origin: string, code = "ECONNREFUSED") =>
    `nothing answers at ${origin}, on this machine (${code}): start the token server it names, or correct the token URL (a credentials file's token_uri).`;
  assert.equal(here("http://127.0.0.1:9100/revoke"), local("http://127.0.0.1:9100"), "another port");
  assert.equal(here("http://127.0.0.1:9099/revoke", {}), local("http://127.0.0.1:9099"), "no emulator set");
  assert.equal(
    here("http://[::1]:9099/revoke"),
    local("http://[::1]:9099"),
    "the emulator's port on another loopback host",
  );
  assert.equal(here("http://localhost:8/revoke"), local("http://localhost:8"));
  const nine = new URL("http://127.0.0.1:9/t");
  assert.equal(notAnsweringHere(nine, "ECONNRESET", {}), undefined, "a reset: something answered there");
  assert.equal(notAnsweringHere(nine, "ETIMEDOUT", {}), undefined, "a timeout: the network is the suspect");
  assert.equal(notAnsweringHere(nine, undefined, {}), undefined, "no network code");
  assert.equal(notAnsweringHere(undefined, "ECONNREFUSED", {}), undefined, "no URL");
  assert.equal(here("https://oauth2.googleapis.com/revoke"), undefined, "Google");
  assert.equal(here("http://10.0.0.1:9099/revoke"), undefined, "another machine");
});
