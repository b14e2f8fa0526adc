// The impersonation chain in gcloud's order, the URLs, and generateAccessToken against the
// emulator's IAM Credentials API: its reply read exactly, each refusal a CredCredentialsError
// with its own code, Google's status, no caller token in any message.
import assert from "node:assert/strict";
import { test } from "node:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CredCredentialsError, ERROR_CODES, exceptions, loadServiceAccountCredentials } from "cred-auth";
import { generateAccessToken, impersonationError } from "../../dist/protocols/iam-credentials.js";
import {
  impersonationUrl,
  projectOfServiceAccount,
  targetOfImpersonationUrl,
} from "../../dist/credentials/kinds/impersonated/file.js";
import { parseImpersonationChain } from "../../dist/formats/impersonation-chain.js";
import { withEmulator } from "../support/emulator.ts";
import { tempDir } from "../support/files.ts";

const emu = await withEmulator();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const sa = (name: string) => `${name}@chain-project.iam.gserviceaccount.com`;
const base = (email: string) => `${emu.url}/v1/projects/-/serviceAccounts/${email}:generateAccessToken`;

test("gcloud's order: the last e-mail is the target, the others delegates in order; spaces trimmed", () => {
  assert.deepEqual(parseImpersonationChain(sa("t"), "--x"), { target: sa("t"), delegates: [] });
  assert.deepEqual(parseImpersonationChain(` ${sa("a")} , ${sa("b")},${sa("t")} `, "--x"), {
    target: sa("t"),
    delegates: [sa("a"), sa("b")],
  });
  assert.deepEqual(parseImpersonationChain([sa("a"), sa("t")], "--x"), { target: sa("t"), delegates: [sa("a")] });
  for (const bad of ["", ",", `${sa("a")},`, "no-at-sign", "a@b@c", "a b@c.d", "x@y/z", [], [sa("a"), ""]]) {
    assert.throws(
      () => parseImpersonationChain(bad, "--impersonate-service-account"),
      (error: unknown) =>
        error instanceof CredCredentialsError &&
        error.code === ERROR_CODES.INVALID_OPTION &&
        error.message.startsWith("--impersonate-service-account takes service account e-mails"),
      JSON.stringify(bad),
    );
  }
});

test("URLs: gcloud's impersonation URL, its target read back, the project of a user-managed account", () => {
  const url = impersonationUrl(sa("t"));
  assert.equal(
    url,
    `https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${sa("t")}:generateAccessToken`,
  );
  assert.equal(targetOfImpersonationUrl(url), sa("t"));
  assert.equal(
    impersonationUrl("x@y.z", "example-universe.com").startsWith("https://iamcredentials.example-universe.com/"),
    true,
  );
  assert.equal(targetOfImpersonationUrl(url.replace(":generateAccessToken", ":signBlob")), undefined);
  assert.equal(targetOfImpersonationUrl(url.replace("@", "%40")), sa("t"), "an escaped @ is read");
  assert.equal(targetOfImpersonationUrl(url.replace(sa("t"), "123456789012345678901")), "123456789012345678901");
  for (const smuggled of ["..%2F..%2Fx%40y.z", "a%20b%40c.d", "x%40y.z%3Fq", "%E0%A4%A"])
    assert.equal(targetOfImpersonationUrl(url.replace(sa("t"), smuggled)), undefined, smuggled);
  assert.equal(targetOfImpersonationUrl(`https://x/${"a".repeat(300)}:generateAccessToken`), undefined);
  assert.equal(projectOfServiceAccount(sa("t")), "chain-project");
  assert.equal(projectOfServiceAccount("123-compute@developer.gserviceaccount.com"), null);
  assert.equal(projectOfServiceAccount("x@ab.iam.gserviceaccount.com"), null, "too short to be a project id");
});

test("generateAccessToken: the emulator's token acts as the target, with the scopes and expiry asked", async (t) => {
  const caller = emu.createServiceAccountKey({ projectId: "chain-project", email: sa("caller") });
  emu.addServiceAccount({ email: sa("hop"), tokenCreators: [`serviceAccount:${sa("caller")}`] });
  emu.addServiceAccount({ email: sa("t"), tokenCreators: [`serviceAccount:${sa("hop")}`] });
  const sourceToken = await keyToken(caller, tempDir(t));
  const before = Date.now();
  const got = await generateAccessToken({
    url: base(sa("t")),
    target: sa("t"),
    sourceToken,
    delegates: [sa("hop")],
    scopes: ["https://www.googleapis.com/auth/bigquery"],
    lifetimeSec: 900,
  });
  const info = emu.checkAccessToken(got.accessToken);
  assert.equal(info?.account, sa("t"));
  assert.deepEqual(info?.scopes, ["https://www.googleapis.com/auth/bigquery"]);
  assert.ok(got.expiresAt > before + 890_000 && got.expiresAt <= Date.now() + 900_000, "900 s asked, 900 s given");

  const refusals: Array<[string, Parameters<typeof generateAccessToken>[0], string, string]> = [
    [
      "no delegate",
      { url: base(sa("t")), target: sa("t"), sourceToken, delegates: [], scopes: [CLOUD] },
      ERROR_CODES.IMPERSONATION_DENIED,
      "PERMISSION_DENIED",
    ],
    [
      "unknown",
      { url: base(sa("ghost")), target: sa("ghost"), sourceToken, delegates: [], scopes: [CLOUD] },
      ERROR_CODES.SERVICE_ACCOUNT_NOT_FOUND,
      "NOT_FOUND",
    ],
    [
      "bad caller",
      {
        url: base(sa("t")),
        target: sa("t"),
        sourceToken: "ya29.not-a-token-of-the-emulator",
        delegates: [],
        scopes: [CLOUD],
      },
      ERROR_CODES.IMPERSONATION_FAILED,
      "UNAUTHENTICATED",
    ],
    [
      "too long",
      { url: base(sa("hop")), target: sa("hop"), sourceToken, delegates: [], scopes: [CLOUD], lifetimeSec: 7200 },
      ERROR_CODES.IMPERSONATION_FAILED,
      "INVALID_ARGUMENT",
    ],
  ];
  for (const [what, request, code, status] of refusals) {
    await assert.rejects(generateAccessToken(request), (error: unknown) => {
      assert.ok(error instanceof exceptions.CredCredentialsError, `${what}: ${String(error)}`);
      assert.equal(error.code, code, what);
      assert.equal(error.error, status, what);
      assert.ok(!error.message.includes(request.sourceToken), `${what}: no caller token`);
      assert.ok(error.message.includes(JSON.stringify(request.target)), `${what}: names the account`);
      return true;
    });
  }
});

test("generateAccessToken: an unreachable API is a CredConnectionError; a 200 without a token is a refusal", async () => {
  await assert.rejects(
    generateAccessToken({
      url: "http://127.0.0.1:1/v1/x:generateAccessToken",
      target: "x@y.z",
      sourceToken: "t",
      delegates: [],
      scopes: [CLOUD],
    }),
    (error: unknown) => error instanceof exceptions.CredConnectionError && error.code === ERROR_CODES.UNREACHABLE,
  );
  const gone = { error: { status: "NOT_FOUND", message: "Not found; Gaia id not found for email x@y.z" } };
  assert.match(
    impersonationError(404, gone, "x@y.z", [], "https://iamcredentials.googleapis.com/v1/x:generateAccessToken")
      .message,
    /^The service account "x@y\.z" or a delegate does not exist; check the e-mail\. Google said \(NOT_FOUND\)/,
  );
  const before = process.env.CRED_AUTH_EMULATOR_HOST;
  process.env.CRED_AUTH_EMULATOR_HOST = emu.host; // the emulator's address is the one this variable names
  const atEmulator = impersonationError(404, gone, "x@y.z", [], `${emu.url}/v1/x:generateAccessToken`);
  if (before === undefined) delete process.env.CRED_AUTH_EMULATOR_HOST;
  else process.env.CRED_AUTH_EMULATOR_HOST = before;
  assert.equal(atEmulator.code, ERROR_CODES.SERVICE_ACCOUNT_NOT_FOUND);
  assert.match(
    atEmulator.message,
    /^The emulator knows no service account "x@y\.z": register it with `cred-auth emulator --service-account`/,
  );
  const odd = impersonationError(200, { accessToken: 7 }, "x@y.z", []);
  assert.equal(odd.code, ERROR_CODES.IMPERSONATION_FAILED);
  assert.equal(odd.error, "HTTP 200");
  const long = impersonationError(
    403,
    { error: { status: "PERMISSION_DENIED", message: `a\nb ${"word ".repeat(400)}` } },
    "x@y.z",
    [],
  );
  assert.ok(!long.message.includes("\n"), "one line");
  assert.match(long.message, /\): a b (word ){190,}word …$/, "a very long text cut after a whole word, and marked");
  const whole = impersonationError(
    403,
    { error: { message: `${"x".repeat(290)} splitting-here ${"y".repeat(200)}` } },
    "x@y.z",
    [],
  );
  assert.ok(whole.message.endsWith(`splitting-here ${"y".repeat(200)}`), "500 characters are kept whole");
});

test("403s told apart by Google's ErrorInfo reason: API disabled, quota project denied, missing role; Google's words whole", async (t) => {
  const caller = emu.createServiceAccountKey({ projectId: "chain-project", email: sa("reasons") });
  emu.addServiceAccount({ email: sa("reasons-target"), tokenCreators: [`serviceAccount:${sa("reasons")}`] });
  const sourceToken = await keyToken(caller, tempDir(t));
  const request = {
    url: base(sa("reasons-target")),
    target: sa("reasons-target"),
    sourceToken,
    delegates: [],
    scopes: [CLOUD],
  };
  const cases = [
    {
      kind: "service-disabled",
      code: ERROR_CODES.API_DISABLED,
      says: /is not enabled in project 987654321098 \(SERVICE_DISABLED\); enable it at https:\/\/console\.developers\.google\.com\/apis\/api\/iamcredentials\.googleapis\.com\/overview\?project=987654321098, wait/,
      // Google's text past 300 characters: the old cut lost its end, mid-word.
      ends: "If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.",
    },
    {
      kind: "user-project-denied",
      code: ERROR_CODES.USER_PROJECT_DENIED,
      says: /may not use project 987654321098 for quota and billing \(USER_PROJECT_DENIED\); grant the caller roles\/serviceusage\.serviceUsageConsumer/,
      ends: "Propagation of the new permission may take a few minutes.",
    },
  ] as const;
  for (const { kind, code, says, ends } of cases) {
    emu.failNext(1, { target: "iam", kind, project: "987654321098" });
    await assert.rejects(generateAccessToken(request), (error: unknown) => {
      assert.ok(error instanceof exceptions.CredCredentialsError, String(error));
      assert.equal(error.code, code, kind);
      assert.equal(error.error, "PERMISSION_DENIED");
      assert.equal(error.status, 403);
      assert.match(error.message, says);
      assert.ok(error.message.endsWith(ends), `${kind}: Google's text kept whole: ${error.message}`);
      assert.doesNotMatch(error.message, /\n/);
      assert.ok(!error.message.includes(sourceToken));
      return true;
    });
  }
  // Without a fault: the caller lacks the role (IAM_PERMISSION_DENIED), the Token Creator advice.
  emu.addServiceAccount({ email: sa("reasons-target"), tokenCreators: [] });
  await assert.rejects(generateAccessToken(request), (error: unknown) => {
    assert.ok(error instanceof exceptions.CredCredentialsError);
    assert.equal(error.code, ERROR_CODES.IMPERSONATION_DENIED);
    assert.match(error.message, /needs the Service Account Token Creator role/);
    assert.ok(
      error.message.endsWith(
        "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
      ),
    );
    return true;
  });
});

test("a 403 for the scope, a foreign activation link, a missing project: each said as Google means it", () => {
  const info = (reason: string, metadata: Record<string, unknown>) => ({
    error: {
      code: 403,
      status: "PERMISSION_DENIED",
      message: "words",
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, metadata }],
    },
  });
  const scope = impersonationError(403, info("ACCESS_TOKEN_SCOPE_INSUFFICIENT", {}), "x@y.z", []);
  assert.equal(scope.code, ERROR_CODES.INVALID_SCOPE);
  assert.match(
    scope.message,
    /lack the cloud-platform scope .*sign in again with https:\/\/www\.googleapis\.com\/auth\/cloud-platform/,
  );
  const phishing = impersonationError(
    403,
    info("SERVICE_DISABLED", {
      consumer: "projects/p-1",
      activationUrl: "https://console.developers.google.com.evil.example/x",
    }),
    "x@y.z",
    [],
  );
  assert.equal(phishing.code, ERROR_CODES.API_DISABLED);
  assert.match(phishing.message, /not enabled in project p-1 \(SERVICE_DISABLED\); enable it, wait/);
  assert.ok(!phishing.message.includes("evil"), "a link outside Google's console is not shown");
  const bare = impersonationError(403, info("USER_PROJECT_DENIED", { consumer: "folders/1" }), "x@y.z", []);
  assert.equal(bare.code, ERROR_CODES.USER_PROJECT_DENIED);
  assert.match(bare.message, /may not use the caller's project for quota/);
  const echoed = "ya29.a0-SECRET-token/with+base64=";
  const echo = impersonationError(
    403,
    info("SERVICE_DISABLED", {
      consumer: "projects/p-1",
      activationUrl: `https://console.cloud.google.com/x?t=${echoed}`,
    }),
    "x@y.z",
    [echoed],
  );
  assert.ok(!echo.message.includes(echoed), "the redaction owner scrubs the link too");
});

/** A token of the key, from the emulator (the key's token_uri is the emulator's). */
async function keyToken(key: Record<string, string>, dir: string): Promise<string> {
  const path = join(dir, "caller.json");
  writeFileSync(path, JSON.stringify(key), { mode: 0o600 });
  const { token } = await (await loadServiceAccountCredentials(path)).getAccessToken();
  assert.ok(token);
  return token;
}
