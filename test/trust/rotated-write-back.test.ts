// Attacker: the user's workforce credentials file is a link, re-pointed into a directory anyone may
// write (mode 777, no sticky bit). STS rotates the refresh token; the write-back judges the
// directory the new token would land in (the link's final one), not the link's own: it writes
// nothing there and says so in one warning, and the token just obtained is still printed.
// Attacker: uid 65534's link in a sticky shared directory names the user's file when print-token
// reads it, and a copy of it (the same refresh token) by the time STS answers: the write-back goes
// only to the file read (by device and inode), so neither file gets the rotated token.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
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

/** An emulator stand-in that runs `midway` when a refresh reaches it, then passes the request on. */
async function forwarder(midway: () => void): Promise<string> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    midway();
    const headers = Object.fromEntries(
      ["content-type", "authorization"].flatMap((h) => (req.headers[h] ? [[h, String(req.headers[h])]] : [])),
    );
    const reply = await fetch(`${emu.url}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
    res.writeHead(reply.status, { "content-type": reply.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(await reply.arrayBuffer()));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  after(() => new Promise<void>((done) => server.close(() => done())));
  return `127.0.0.1:${(server.address() as { port: number }).port}`;
}

test("another user's link in a sticky directory, re-pointed mid-refresh: the rotated token lands in neither file", async () => {
  const box = sandbox(emu, { CRED_AUTH_TOKEN_CACHE: "off" });
  const json = { ...workforceJson(), token_info_url: "https://sts.googleapis.com/v1/introspect" };
  const [read, other] = ["mine", "copy"].map((name) => {
    const dir = join(box.dir, name);
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, "workforce.json"), JSON.stringify(json), { mode: 0o600 });
    return join(dir, "workforce.json");
  });
  // A shared directory like /tmp (sticky, anyone writes), where uid 65534 keeps a link to the user's file.
  const shared = join(box.dir, "shared");
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  chownSync(shared, 65534, 65534);
  const link = join(shared, "adc.json");
  const plant = (to: string) => {
    rmSync(link, { force: true });
    symlinkSync(to, link);
    lchownSync(link, 65534, 65534);
  };
  plant(read as string);
  const host = await forwarder(() => plant(other as string));
  const result = await runCli(["print-token", link], { ...box.env, CRED_AUTH_EMULATOR_HOST: host });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(emu.checkAccessToken(result.stdout.trim()), "the token just obtained is printed");
  assert.deepEqual(JSON.parse(readFileSync(other as string, "utf8")), json, "the file the link names now is untouched");
  assert.deepEqual(JSON.parse(readFileSync(read as string, "utf8")), json);
  assert.match(
    result.stderr,
    /did not write the new one there: the file is not the file the refresh token was read from/,
  );
});
