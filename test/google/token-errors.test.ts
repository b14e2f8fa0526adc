// The token-request error mapping and its redaction, mutant by mutant: every secret form a reply
// may echo (raw, percent-encoded in either case, form-encoded, JSON-escaped, Basic) must be gone
// from messages, stacks, replies and the kept request, and each failure must map to its class.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredConnectionError, CredCredentialsError } from "cred-auth";
import { grantTypeOf, redactTokenRequestError, secretForms, toCredError } from "../../dist/google/token-errors.js";

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

test("secretForms lists each encoding once, lower-case hex too, and nothing shorter than 8 characters", () => {
  const forms = secretForms("ab/c+d=e");
  assert.deepEqual(new Set(forms).size, forms.length);
  for (const form of ["ab/c+d=e", "ab%2Fc%2Bd%3De", "ab%2fc%2bd%3de", "ab%252Fc%252Bd%253De", "ab\\/c+d=e"])
    assert.ok(forms.includes(form), `${form} missing from ${forms}`);
  assert.deepEqual(secretForms("a b"), []);
  assert.ok(secretForms('a"b\ncdefg').includes('a\\"b\\ncdefg'));
  assert.ok(secretForms("ab cd ef gh").includes("ab+cd+ef+gh"));
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
    "Refreshing failed: invalid_client: the OAuth client id or secret was rejected; check the client.",
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
