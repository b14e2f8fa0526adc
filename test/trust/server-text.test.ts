// Attacker: a token server (a loopback token_uri, allowed for the file's own refresh token) that
// answers "tokens" holding escape codes, an OSC 8 link and CR LF; and a credentials file holding
// bidi, zero-width and C1 characters. A token is printed only if it is a token (else one coded
// error that shows none of it); status's JSON escapes what would hide or reorder text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ERROR_CODES } from "cred-auth";
import { MAX_TOKEN_LENGTH, checkedToken, safeJson } from "../../dist/trust/text.js";
import { runCli, sandbox } from "../cli/support.ts";
import { startRecorder } from "./recorder.ts";

const HOSTILE = [
  "ya29.a\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007",
  "ya29.b\r\nX-Injected: 1",
  "ya29.c\u001b[2J\u001b[H",
  "ya29.d e",
  "ya29.e\u202e",
  "",
];
let answer = HOSTILE[0]!;
const server = await startRecorder(() => ({
  body: JSON.stringify({ access_token: answer, id_token: answer, expires_in: 3600, token_type: "Bearer" }),
}));

function userFile(dir: string, name: string): string {
  const path = join(dir, name);
  const file = {
    type: "authorized_user",
    client_id: "c.apps.example",
    client_secret: "GOCSPX-server-text-secret",
    refresh_token: `1//0g-server-text-${name}`,
    token_uri: `${server.url}/token`,
  };
  writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
  return path;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

test("print-token refuses a token server's non-token in every format: one coded line, nothing of it shown", async () => {
  const box = sandbox();
  for (const [index, hostile] of HOSTILE.entries()) {
    answer = hostile;
    for (const format of [["--format", "text"], ["--header"], ["--format", "json"]]) {
      const path = userFile(box.dir, `user-${index}-${format.join("")}.json`);
      const result = await runCli(["print-token", ...format, path], box.env);
      assert.equal(result.stdout, "", `${JSON.stringify(hostile)} ${format}: nothing printed`);
      assert.notEqual(result.code, 0);
      if (hostile === "") continue; // an empty token is refused earlier, as before
      assert.equal(result.code, 3, result.stderr);
      assert.match(
        result.stderr,
        /^cred-auth: The server answered an access token that is not a token \(.*\); cred-auth printed none of it\. .* \(ERR_TOKEN_MALFORMED\)\n$/,
      );
      assert.ok(!RAW.test(result.stderr), JSON.stringify(result.stderr));
      assert.ok(!result.stderr.includes("ya29."), "no part of it");
    }
  }
  answer = "ya29.a-real-token_value~/+=";
  const good = await runCli(["print-token", "--header", userFile(box.dir, "good.json")], box.env);
  assert.equal(good.stdout, `Authorization: Bearer ${answer}\n`, good.stderr);
});

test("checkedToken: visible ASCII up to the length bound, else ERR_TOKEN_MALFORMED", () => {
  for (const token of ["a", "ya29.x-y_z~/+=", "!~", "t".repeat(MAX_TOKEN_LENGTH)])
    assert.equal(checkedToken(token, "a token"), token);
  for (const token of [...HOSTILE, "t".repeat(MAX_TOKEN_LENGTH + 1), "caf\u00e9", "a\u0085b", "a\u007fb", "\u00a0"])
    assert.throws(
      () => checkedToken(token, "an ID token"),
      (error: Error & { code?: string }) =>
        error.code === ERROR_CODES.TOKEN_MALFORMED &&
        error.message.startsWith("The server answered an ID token that is not a token") &&
        (token === "" || !error.message.includes(token)),
      JSON.stringify(token.slice(0, 20)),
    );
});

test("safeJson: C1, DEL, bidi and zero-width characters escaped; the same data to a JSON reader", () => {
  const value = {
    account: "eve\u202e\u2066moc.elpmaxe@\u200b\u0085\u009b\u007f\u2028\ufeff\u061c",
    n: 1,
    ok: "plain é",
  };
  const text = safeJson(value, 2);
  assert.ok(!RAW.test(text) && !/[\u2028\ufeff\u061c]/.test(text), text);
  assert.deepEqual(JSON.parse(text), value);
  assert.match(text, /\\u202e\\u2066.*\\u200b\\u0085\\u009b\\u007f\\u2028\\ufeff\\u061c/);
  assert.ok(text.includes("plain é"), "other characters stay as they are");
  assert.equal(safeJson({ a: 1 }), '{"a":1}');
  assert.equal(safeJson({ a: 1 }, 2), '{\n  "a": 1\n}');
  assert.equal(safeJson(undefined), "null");
});

test("status --format json escapes bidi, zero-width and C1 characters from a file", async () => {
  const box = sandbox();
  const path = userFile(box.dir, "status.json");
  const hostile = "eve\u202e\u2066moc.elpmaxe@\u200b\u009b31m";
  const { readFileSync } = await import("node:fs");
  const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  writeFileSync(path, JSON.stringify({ ...json, account: hostile, quota_project_id: `p\u200f\u0085` }), {
    mode: 0o600,
  });
  const result = await runCli(["status", path, "--format", "json"], box.env);
  assert.ok(!RAW.test(result.stdout), JSON.stringify(result.stdout));
  assert.ok(result.stdout.includes("\\u202e\\u2066moc.elpmaxe@\\u200b\\u009b31m"), result.stdout);
  assert.ok(JSON.stringify(JSON.parse(result.stdout)).includes(hostile), "a JSON reader gets the same text");
});

test("print-identity-token: an ID token is checked where it comes back (a JWT of base64url parts): one coded line", async () => {
  const box = sandbox();
  const segment = (json: unknown) => Buffer.from(JSON.stringify(json)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: "https://accounts.google.com", aud: "c.apps.example", sub: "1", iat: now, exp: now + 3600 };
  // A readable JWT whose signature part carries an OSC sequence and a CR LF (base64url decoders skip them).
  answer = `${segment({ alg: "RS256", typ: "JWT" })}.${segment(claims)}.c2ln\u001b]0;owned\u0007\r\nX-Injected: 1`;
  const result = await runCli(["print-identity-token", userFile(box.dir, "id.json")], box.env);
  assert.equal(result.stdout, "");
  assert.equal(result.code, 3, result.stderr);
  assert.match(
    result.stderr,
    /^cred-auth: The token server sent an ID token that is not a readable JWT; .*\(ERR_SERVER_ERROR\)\n$/,
  );
  assert.ok(!RAW.test(result.stderr), JSON.stringify(result.stderr));
  assert.ok(!result.stderr.includes("X-Injected"));
});

test("a token server's non-token is not kept: not in the token cache, and the next run asks again and prints the real one", async () => {
  const box = sandbox();
  const path = userFile(box.dir, "refused-then-good.json");
  answer = "ya29.kept\r\nX-Injected: 1";
  const refused = await runCli(["print-token", path], box.env);
  assert.equal(refused.code, 3, refused.stderr);
  const cached = existsSync(box.tokenCache)
    ? readdirSync(box.tokenCache, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
    : [];
  for (const entry of cached)
    assert.ok(!readFileSync(join(entry.parentPath, entry.name), "utf8").includes("ya29.kept"), entry.name);
  answer = "ya29.the-real-one";
  const again = await runCli(["print-token", path], box.env);
  assert.equal(again.stdout, `${answer}\n`, again.stderr);
});
