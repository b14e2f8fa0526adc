// Fault injection on the token endpoint and the HTTP admin API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { createPrivateKey } from "node:crypto";
import { withEmulator } from "../support/emulator.ts";
import { tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const emu = await withEmulator();
const refreshToken = emu.issueRefreshToken({ scopes: [CLOUD] });
const refresh = () => tokenRequest(emu, { grant_type: "refresh_token", refresh_token: refreshToken });

/** A raw token POST, so broken answers can be seen as they are. */
function rawTokenPost(
  timeoutMs = 0,
): Promise<{ status?: number; body?: Buffer; error?: NodeJS.ErrnoException; timedOut?: boolean }> {
  return new Promise((resolve) => {
    const body = new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: "cred-auth-demo.apps.emulator.invalid",
      client_secret: "cred-auth-demo-secret-emulator-only",
    }).toString();
    const req = request(
      `${emu.url}/token`,
      { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
        res.on("error", (error) => resolve({ error }));
      },
    );
    req.on("error", (error) => resolve({ error }));
    if (timeoutMs > 0)
      req.setTimeout(timeoutMs, () => {
        req.destroy();
        resolve({ timedOut: true });
      });
    req.end(body);
  });
}

test("status faults: default 503 with Google-like JSON, custom status, then back to normal", async () => {
  emu.failNext(2);
  const first = await refresh();
  assert.equal(first.status, 503);
  assert.equal(first.json.error, "temporarily_unavailable");
  assert.equal((await refresh()).status, 503);
  assert.equal((await refresh()).status, 200);
  emu.failNext(1, { status: 500 });
  assert.equal((await refresh()).status, 500);
  emu.failNext(1, { kind: "status", status: 429 });
  const limited = await refresh();
  assert.equal(limited.status, 429);
  assert.equal(limited.json.error, "rate_limit_exceeded");
});

test("garbage, truncated and html faults", async () => {
  emu.failNext(1, { kind: "garbage" });
  const garbage = await rawTokenPost();
  assert.equal(garbage.status, 200);
  assert.throws(() => JSON.parse(garbage.body!.toString("utf8")));
  emu.failNext(1, { kind: "truncated" });
  const truncated = await rawTokenPost();
  assert.equal(truncated.status, 200);
  assert.match(truncated.body!.toString(), /^\{/);
  assert.throws(() => JSON.parse(truncated.body!.toString("utf8")));
  emu.failNext(1, { kind: "html" });
  const html = await rawTokenPost();
  assert.equal(html.status, 502);
  assert.match(html.body!.toString(), /<html/i);
  assert.equal((await rawTokenPost()).status, 200);
});

test("reset fault destroys the connection", async () => {
  emu.failNext(1, { kind: "reset" });
  const reset = await rawTokenPost();
  assert.ok(reset.error, "expected a socket error");
  assert.match(String(reset.error.code), /ECONNRESET|EPIPE|socket hang up/);
  assert.equal((await rawTokenPost()).status, 200);
});

test("slow fault answers normally after the delay; hang never answers", async () => {
  emu.failNext(1, { kind: "slow", delayMs: 300 });
  const slow = await refresh();
  assert.equal(slow.status, 200);
  emu.failNext(1, { kind: "hang" });
  const hung = await rawTokenPost(500);
  assert.equal(hung.timedOut, true);
  assert.equal((await refresh()).status, 200);
});

test("setTokenDelay delays but answers; counters count every token request by grant; reset clears", async () => {
  emu.reset();
  emu.setTokenDelay(50);
  assert.equal((await refresh()).status, 200);
  emu.setTokenDelay(0);
  emu.failNext(1);
  await refresh();
  await tokenRequest(emu, { grant_type: "password" });
  const stats = emu.stats();
  assert.equal(stats.tokenRequests, 3);
  assert.deepEqual(stats.byGrant, { refresh_token: 2, password: 1 });
  emu.failNext(3);
  emu.reset();
  assert.equal(emu.stats().tokenRequests, 0);
  assert.equal((await refresh()).status, 200);
  assert.throws(() => emu.failNext(-1), RangeError);
  assert.throws(() => emu.failNext(1, { kind: "explode" as never }), RangeError);
});

test("a hung request does not keep close() waiting", async () => {
  const other = await withEmulator();
  const token = other.issueRefreshToken({ scopes: [CLOUD] });
  other.failNext(1, { kind: "hang" });
  const pending = tokenRequest(other, { grant_type: "refresh_token", refresh_token: token }).catch((e: unknown) => e);
  await new Promise((r) => setTimeout(r, 100));
  await other.close();
  assert.ok((await pending) instanceof Error);
});

async function admin(path: string, body?: unknown, method = body === undefined ? "GET" : "POST") {
  const res = await fetch(`${emu.url}/__emulator${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

test("admin API: stats, fail, reset, token-delay", async () => {
  await admin("/reset", {});
  await refresh();
  const stats = await admin("/stats");
  assert.equal(stats.status, 200);
  assert.equal(stats.json.tokenRequests, 1);
  assert.equal((await admin("/fail", { count: 1, kind: "status", status: 500 })).status, 200);
  assert.equal((await refresh()).status, 500);
  assert.equal((await admin("/fail", { count: 1, kind: "nope" })).status, 400);
  assert.equal((await admin("/fail", { count: -2 })).status, 400);
  assert.equal((await admin("/token-delay", { ms: 0 })).status, 200);
  const info = await admin("");
  assert.equal(info.json.url, emu.url);
  assert.ok(Array.isArray(info.json.accounts));
  assert.equal((await admin("/nothing", {})).status, 404);
  assert.equal((await admin("/stats", {}, "POST")).status, 404);
  assert.equal((await admin("/reset")).status, 405);
});

test("admin API: refresh-token, revoke, check-access-token, service-account-key, metadata", async () => {
  const minted = await admin("/refresh-token", { scopes: [CLOUD], account: "carol@example.com" });
  const token = String(minted.json.refresh_token);
  const reply = await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: token });
  assert.equal(reply.status, 200);
  const checked = await admin("/check-access-token", { token: reply.json.access_token });
  assert.equal((checked.json.info as { account: string }).account, "carol@example.com");
  assert.equal((await admin("/revoke", { refresh_token: token })).status, 200);
  assert.equal(
    (await tokenRequest(emu, { grant_type: "refresh_token", refresh_token: token })).json.error,
    "invalid_grant",
  );
  assert.equal((await admin("/check-access-token", { token: reply.json.access_token })).json.info, null);
  assert.equal((await admin("/revoke", {})).status, 400);
  assert.equal((await admin("/refresh-token", { scopes: "x" })).status, 400);
  assert.equal((await admin("/refresh-token", { scopes: [CLOUD], clientId: "unknown" })).status, 400);

  const key = await admin("/service-account-key", { projectId: "p1" });
  assert.equal(key.json.type, "service_account");
  assert.equal(key.json.project_id, "p1");
  assert.equal(key.json.token_uri, `${emu.url}/token`);
  assert.doesNotThrow(() => createPrivateKey(String(key.json.private_key)));

  assert.equal(
    (await admin("/metadata", { projectId: "meta-p", email: "vm@meta-p.iam.gserviceaccount.com" })).status,
    200,
  );
  const project = await fetch(`${emu.url}/computeMetadata/v1/project/project-id`, {
    headers: { "Metadata-Flavor": "Google" },
  });
  assert.equal(await project.text(), "meta-p");
  assert.equal((await admin("/metadata", null)).status, 200);
  assert.equal(
    (await fetch(`${emu.url}/computeMetadata/v1/project/project-id`, { headers: { "Metadata-Flavor": "Google" } }))
      .status,
    404,
  );
  assert.equal((await admin("/metadata", { projectId: 1 })).status, 400);

  await admin("/revoke", { all: true });
  assert.equal((await refresh()).json.error, "invalid_grant");
});

test("admin API refuses cross-origin browsers and foreign Host names; malformed JSON is a 400", async () => {
  const crossOrigin = await fetch(`${emu.url}/__emulator/reset`, {
    method: "POST",
    headers: { Origin: "http://evil.example" },
  });
  assert.equal(crossOrigin.status, 403);
  const rebinding = await new Promise<number | undefined>((resolve) => {
    request(`${emu.url}/__emulator/stats`, { headers: { Host: "evil.example" } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).end();
  });
  assert.equal(rebinding, 403);
  const badJson = await fetch(`${emu.url}/__emulator/fail`, { method: "POST", body: "{nope" });
  assert.equal(badJson.status, 400);
});
