// Attacker: the user's workforce credentials file is a link, re-pointed into a directory anyone may
// write (mode 777, no sticky bit). STS rotates the refresh token; the write-back judges the
// directory the new token would land in (the link's final one), not the link's own: it writes
// nothing there and says so in one warning, and the token just obtained is still printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withEmulator } from "../support/emulator.ts";
import { runCli, sandbox } from "../cli/support.ts";

const emu = await withEmulator();

function workforceJson(): Record<string, string> {
  return {
    ...emu.issueExternalAccountAuthorizedUser(),
    token_url: "https://sts.googleapis.com/v1/oauthtoken",
  } as Record<string, string>;
}

test("a link re-pointed into a 0777 directory: the rotated refresh token is not written there", async () => {
  const box = sandbox(emu, { CRED_AUTH_TOKEN_CACHE: "off" });
  const open = join(box.dir, "open");
  mkdirSync(open);
  chmodSync(open, 0o777);
  const json = workforceJson();
  const target = join(open, "workforce.json");
  writeFileSync(target, JSON.stringify(json), { mode: 0o600 });
  const home = join(box.dir, "home");
  mkdirSync(home, { mode: 0o700 });
  const link = join(home, "adc.json");
  symlinkSync(target, link);
  const result = await runCli(["print-token", link], box.env);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(emu.checkAccessToken(result.stdout.trim()), "the token just obtained is printed");
  assert.match(
    result.stderr,
    /^cred-auth: warning: Google's Security Token Service replaced the refresh token of ".*home\/adc\.json" and the old one no longer works, but cred-auth did not write the new one there: Could not write credentials to ".*open\/workforce\.json": the directory ".*open" may be written by anyone \(mode 777\); cred-auth writes no secret there\. .*\n$/,
  );
  assert.deepEqual(JSON.parse(readFileSync(target, "utf8")), json, "the file in the open directory is untouched");
  assert.deepEqual(readdirSync(open), ["workforce.json"], "no temp file left there either");
});

test("a link into a private directory of the user's: the rotated refresh token is written into the final file", async () => {
  const box = sandbox(emu, { CRED_AUTH_TOKEN_CACHE: "off" });
  const store = join(box.dir, "store");
  mkdirSync(store, { mode: 0o700 });
  const json = workforceJson();
  const target = join(store, "workforce.json");
  writeFileSync(target, JSON.stringify(json), { mode: 0o600 });
  const link = join(box.dir, "adc.json");
  symlinkSync(target, link);
  const result = await runCli(["print-token", link], box.env);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, "");
  const kept = JSON.parse(readFileSync(target, "utf8")) as Record<string, string>;
  assert.notEqual(kept.refresh_token, json.refresh_token, "kept in the file the link names");
  assert.equal(readFileSync(link, "utf8"), readFileSync(target, "utf8"), "the link still names it");
});
