// `cred-auth print-token` with external_account and external_account_authorized_user files, as a
// real process against the emulator's STS: the 0600 token cache keyed by secret material, and
// coded failures that never show a subject token, refresh token or client secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE, DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator, workloadFileJson } from "../support/emulator.ts";
import { runCli, sandbox, type CliResult } from "./support.ts";

// STS's fault "revoke-old" (Google keeps a rotated-away refresh token working): a run that did not
// write the new token back fails the next one, so the write-back tests below can fail.
const emu = await withEmulator({ stsRefreshTokenRotation: "revoke-old" });
const outputs: string[] = [];
const secrets: string[] = [];

async function printToken(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const r = await runCli(["print-token", ...args], env);
  outputs.push(r.stdout, r.stderr);
  return r;
}

const cacheFiles = (dir: string) => {
  try {
    return readdirSync(dir).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
};

function externalFile(dir: string, tokenFile: string): string {
  const path = join(dir, "wif.json");
  writeFileSync(path, JSON.stringify(workloadFileJson(tokenFile)));
  return path;
}

test("external_account (file source): a token the emulator accepts, cached 0600; a new subject token gets a new key", async () => {
  const box = sandbox(emu);
  const tokenFile = join(box.dir, "subject.jwt");
  const subject = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE });
  secrets.push(subject);
  writeFileSync(tokenFile, subject);
  const path = externalFile(box.dir, tokenFile);
  const before = emu.stats().tokenRequests;
  const first = await printToken([path], box.env);
  assert.equal(first.code, 0, first.stderr);
  const token = first.stdout.trim();
  assert.ok(emu.checkAccessToken(token), "the emulator knows the printed token");
  const second = await printToken([path], box.env);
  assert.equal(second.stdout, first.stdout);
  assert.equal(emu.stats().tokenRequests, before + 1, "the second call was served from the cache");
  const [entry] = cacheFiles(box.tokenCache);
  assert.equal(statSync(join(box.tokenCache, entry!)).mode & 0o777, 0o600);
  assert.ok(!readFileSync(join(box.tokenCache, entry!), "utf8").includes(subject));

  const rotated = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, subject: "other" });
  secrets.push(rotated);
  writeFileSync(tokenFile, rotated);
  const third = await printToken([path], box.env);
  assert.equal(third.code, 0, third.stderr);
  assert.notEqual(third.stdout, first.stdout, "another subject token is another cache key");
  assert.equal(cacheFiles(box.tokenCache).length, 2);
});

test("external_account (URL source) and external_account_authorized_user print working tokens", async () => {
  const box = sandbox(emu);
  const subject = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE });
  secrets.push(subject);
  const url = emu.serveSubjectToken({ token: subject, requiredHeader: { name: "Metadata", value: "True" } });
  const wif = join(box.dir, "url.json");
  writeFileSync(
    wif,
    JSON.stringify({
      type: "external_account",
      audience: DEFAULT_WORKLOAD_AUDIENCE,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: "https://sts.googleapis.com/v1/token",
      credential_source: { url, headers: { Metadata: "True" } },
    }),
  );
  const fromUrl = await printToken([wif], box.env);
  assert.equal(fromUrl.code, 0, fromUrl.stderr);
  assert.ok(emu.checkAccessToken(fromUrl.stdout.trim()));

  const json = emu.issueExternalAccountAuthorizedUser();
  secrets.push(json.refresh_token!, json.client_secret!);
  const user = join(box.dir, "user.json");
  writeFileSync(user, JSON.stringify({ ...json, token_url: "https://sts.googleapis.com/v1/oauthtoken" }));
  const printed = await printToken([user], box.env);
  assert.equal(printed.code, 0, printed.stderr);
  assert.ok(emu.checkAccessToken(printed.stdout.trim()));
  const cached = cacheFiles(box.tokenCache)
    .map((f) => readFileSync(join(box.tokenCache, f), "utf8"))
    .join("\n");
  for (const secret of [json.refresh_token!, json.client_secret!, subject]) assert.ok(!cached.includes(secret));
});

test("a workforce external_account file with a client id and secret and no workforce_pool_user_project prints a working token", async () => {
  const box = sandbox(emu);
  const tokenFile = join(box.dir, "subject.jwt");
  const subject = emu.issueSubjectToken({ audience: DEFAULT_WORKFORCE_AUDIENCE, subject: "alice" });
  secrets.push(subject, DEMO_CLIENT.clientSecret);
  writeFileSync(tokenFile, subject);
  const path = join(box.dir, "workforce.json");
  const json = workloadFileJson(tokenFile, {
    audience: DEFAULT_WORKFORCE_AUDIENCE,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    client_id: DEMO_CLIENT.clientId,
    client_secret: DEMO_CLIENT.clientSecret,
  });
  writeFileSync(path, JSON.stringify(json));
  const printed = await printToken([path], box.env);
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(
    emu.checkAccessToken(printed.stdout.trim())?.account ?? "",
    /workforcePools\/emu-workforce\/subject\/alice$/,
  );
});

test("failures: missing subject-token file, STS refusal, unsafe token_url; coded, one line, no secret", async () => {
  const box = sandbox(emu);
  const missing = await printToken([externalFile(box.dir, join(box.dir, "none.jwt"))], box.env);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /subject-token file/);

  const expired = emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE, lifetimeSec: -60 });
  secrets.push(expired);
  const expiredFile = join(box.dir, "expired.jwt");
  writeFileSync(expiredFile, expired);
  const refused = await printToken([externalFile(box.dir, expiredFile)], box.env);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /invalid_grant: The ID Token has expired\./);

  const json = emu.issueExternalAccountAuthorizedUser();
  secrets.push(json.refresh_token!, json.client_secret!);
  const evil = join(box.dir, "evil.json");
  writeFileSync(evil, JSON.stringify({ ...json, token_url: "https://evil.example/v1/oauthtoken" }));
  const unsafe = await printToken([evil], box.env);
  assert.notEqual(unsafe.code, 0);
  assert.match(unsafe.stderr, /not Google's Security Token Service/);
});

/** An external_account_authorized_user file of the emulator (STS rotates its refresh token away), mode 0600. */
function workforceUserFile(
  dir: string,
  name = "workforce.json",
  mode = 0o600,
): { path: string; json: Record<string, string> } {
  const json = {
    ...emu.issueExternalAccountAuthorizedUser(),
    token_url: "https://sts.googleapis.com/v1/oauthtoken",
    quota_project_id: "workforce-project",
  } as Record<string, string>;
  secrets.push(json.refresh_token!, json.client_secret!);
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(json), { mode });
  chmodSync(path, mode);
  return { path, json };
}

const fileJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, string>;

test("a refresh token STS rotated is written back: two runs without the token cache both succeed", async () => {
  const box = sandbox(emu, { CRED_AUTH_TOKEN_CACHE: "off" });
  const { path, json } = workforceUserFile(box.dir);
  const first = await printToken([path], box.env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stderr, "", "nothing to warn about");
  const kept = fileJson(path);
  secrets.push(kept.refresh_token!);
  assert.notEqual(kept.refresh_token, json.refresh_token, "the rotated refresh token is in the file");
  assert.deepEqual({ ...kept, refresh_token: json.refresh_token }, json, "every other field as it was");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(box.dir).sort(), ["workforce.json"], "written atomically: no temp file left");
  const second = await printToken([path], box.env);
  assert.equal(second.code, 0, `the second run presents the kept token: ${second.stderr}`);
  assert.ok(emu.checkAccessToken(second.stdout.trim()));
  assert.notEqual(fileJson(path).refresh_token, kept.refresh_token, "rotated again, and kept again");
  secrets.push(fileJson(path).refresh_token!);
});

test("with the token cache, the next run finds the token under the rotated refresh token's key", async () => {
  const box = sandbox(emu);
  const { path } = workforceUserFile(box.dir);
  const first = await printToken([path], box.env);
  assert.equal(first.code, 0, first.stderr);
  const kept = fileJson(path).refresh_token!;
  secrets.push(kept);
  const second = await printToken([path], box.env);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, first.stdout, "the same token, from the cache");
  assert.equal(fileJson(path).refresh_token, kept, "no refresh (STS would have rotated the token again)");
});

test("a file cred-auth may not write (others may write it): one clear warning, and the token still printed", async () => {
  const box = sandbox(emu, { CRED_AUTH_TOKEN_CACHE: "off" });
  const { path, json } = workforceUserFile(box.dir, "shared.json", 0o664);
  const r = await printToken([path], box.env);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(emu.checkAccessToken(r.stdout.trim()), "the token is printed");
  assert.match(
    r.stderr,
    /^cred-auth: warning: Google's Security Token Service replaced the refresh token of ".*shared\.json" and the old one no longer works, but cred-auth did not write the new one there: the file may be written by others \(mode 664\)\. .* Keep the file yours and private \(chmod 600\) so cred-auth can update it\.\n$/,
  );
  assert.deepEqual(fileJson(path), json, "the file is left as it was");
});

test("no secret in any output of this file", () => {
  const all = outputs.join("\n");
  for (const secret of secrets)
    for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])
      assert.ok(!all.includes(form), "a secret was printed");
});
