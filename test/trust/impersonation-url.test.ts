// Attacker: a split impersonation URL, whose path names one account while its query or fragment
// names another. One parser reads the account from the path and refuses a query or a fragment, so
// status, the messages, default() and print-token all refuse the same file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as credAuth from "cred-auth";
import { CredAuthError, ERROR_CODES, cache } from "cred-auth";
import { targetOfImpersonationUrl } from "../../dist/formats/impersonation-url.js";
import { testCredentialsFile } from "../support/emulator.ts";
import { browserPresenter, isolatedWorld, withEnv } from "../credentials/support.ts";
import { CLOUD_PLATFORM, runCli, sandbox } from "../cli/support.ts";

const IAM = "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/";
const victim = "victim@p.iam.gserviceaccount.com";
const mine = "mine@p.iam.gserviceaccount.com";
const SPLIT = [
  `${IAM}${mine}:generateAccessToken?x=/${victim}:generateAccessToken`,
  `${IAM}${mine}:generateAccessToken#/serviceAccounts/${victim}:generateAccessToken`,
  `${IAM}${mine}:generateAccessToken?`,
  `${IAM}${mine}:generateAccessToken#`,
  `${IAM}${victim}%3AgenerateAccessToken?/${mine}:generateAccessToken`,
];

test("the account is the path's; a query or fragment is refused, whatever it names", () => {
  assert.equal(targetOfImpersonationUrl(`${IAM}${mine}:generateAccessToken`), mine);
  assert.equal(targetOfImpersonationUrl(`${IAM}x/../${mine}:generateAccessToken`), mine, "the path the request takes");
  for (const url of SPLIT) assert.equal(targetOfImpersonationUrl(url), undefined, url);
  for (const url of [`${mine}:generateAccessToken`, "not a url:generateAccessToken", "https://x/:generateAccessToken"])
    assert.equal(targetOfImpersonationUrl(url), undefined, url);
});

const { emulator, home } = await isolatedWorld();

test("print-token, status and default() refuse a split impersonation URL alike, with one coded line", async () => {
  const box = sandbox(emulator);
  const source = JSON.parse(
    readFileSync(await testCredentialsFile(emulator, home, { scopes: [CLOUD_PLATFORM], filename: "src.json" }), "utf8"),
  ) as Record<string, unknown>;
  const before = emulator.stats().iamRequests;
  for (const [index, url] of SPLIT.slice(0, 2).entries()) {
    const path = join(box.dir, `split-${index}.json`);
    const json = { type: "impersonated_service_account", delegates: [], service_account_impersonation_url: url };
    writeFileSync(path, JSON.stringify({ ...json, source_credentials: source }), { mode: 0o600 });
    const printed = await runCli(["print-token", path], box.env);
    assert.equal(printed.code, 1, printed.stderr);
    assert.match(
      printed.stderr,
      /has no "service_account_impersonation_url" ending in ACCOUNT:generateAccessToken \(a URL with no query or fragment\);.*\(ERR_FILE_INVALID\)\n$/,
    );
    const status = await runCli(["status", path], box.env);
    assert.equal(status.code, 1);
    assert.ok(!status.stdout.includes(victim), "status names no account of the query or fragment");
    assert.match(status.stdout, /a URL with no query or fragment/);
    // default() refuses the file too: its warning names why, and it acts as neither account (it
    // falls back to a sign-in of the user's own, as for any unusable GOOGLE_APPLICATION_CREDENTIALS).
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    const b = browserPresenter();
    await assert.rejects(
      withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
        credAuth.default([CLOUD_PLATFORM], { credentialsCache: cache.NOOP, presenter: b.presenter }),
      ),
      (error: unknown) => error instanceof CredAuthError && error.code === ERROR_CODES.SIGN_IN_PENDING,
    );
    await new Promise((resolve) => setImmediate(resolve));
    process.off("warning", onWarning);
    assert.ok(
      warnings.some((w) => w.includes("a URL with no query or fragment")),
      warnings.join("\n"),
    );
  }
  assert.equal(emulator.stats().iamRequests, before, "no account was impersonated");
});

test("an external_account file with a split impersonation URL is refused the same way", async () => {
  const box = sandbox(emulator);
  const path = join(box.dir, "wif.json");
  writeFileSync(
    path,
    JSON.stringify({
      type: "external_account",
      audience: "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x",
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: "https://sts.googleapis.com/v1/token",
      credential_source: { file: join(box.dir, "none") },
      service_account_impersonation_url: SPLIT[0],
    }),
  );
  const printed = await runCli(["print-token", path], box.env);
  assert.equal(printed.code, 1);
  assert.match(printed.stderr, /that does not end in ACCOUNT:generateAccessToken \(a URL with no query or fragment\)/);
});
