// ID tokens as Google signs them: RS256 with rotating, published keys, Google's claims per source,
// checked by google-auth-library's own verifyIdToken against the emulator's cert URLs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac, createPublicKey, createVerify, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Compute, JWT, OAuth2Client } from "google-auth-library";
import { approveSignIn, DEMO_CLIENT } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { certEndpoints, decodeJwtParts, pointJwtAt, refreshGrant, verifyIdToken } from "../support/id-tokens.ts";
import { authUrl, pkcePair, postForm, signAssertion, startReceiver, tokenRequest } from "./support.ts";

const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const IAP_CLIENT = { clientId: "iap-resource.apps.emulator.invalid", clientSecret: "iap-secret", type: "web" as const };
// gcloud's ADC client lives in Google's own project, not the user's (google-auth-library-python#669).
const FOREIGN_CLIENT = {
  clientId: "foreign.apps.emulator.invalid",
  clientSecret: "foreign-secret",
  type: "installed" as const,
  project: "someone-elses-project",
};
const identity = { projectId: "vm-project", email: "vm-sa@vm-project.iam.gserviceaccount.com" };
const emu = await withEmulator({ metadata: identity, clients: [IAP_CLIENT, FOREIGN_CLIENT] });
const receiver = await startReceiver();
const home = mkdtempSync(join(tmpdir(), "cred-auth-idt-"));

before(() => {
  process.env.GCE_METADATA_HOST = emu.host;
});
after(() => {
  delete process.env.GCE_METADATA_HOST;
  rmSync(home, { recursive: true, force: true });
});

function refreshIdToken(scopes: string[], extra: { audience?: string } = {}) {
  return refreshGrant(emu, { scopes, ...extra });
}

function md(path: string, headers: Record<string, string> = { "Metadata-Flavor": "Google" }) {
  return fetch(`${emu.url}/computeMetadata/v1/instance/service-accounts/default/${path}`, { headers });
}

/** A token whose payload was changed after signing. */
function tampered(token: string, change: Record<string, unknown>): string {
  const [header, , signature] = token.split(".");
  const payload = Buffer.from(JSON.stringify({ ...decodeJwtParts(token).claims, ...change })).toString("base64url");
  return `${header}.${payload}.${signature}`;
}

test("a refresh grant's ID token: RS256, a published kid, Google's claims; verifyIdToken accepts it for its audience only", async () => {
  const reply = await refreshIdToken(["openid", "email", CLOUD]);
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  const idToken = String(reply.json.id_token);
  const { header } = decodeJwtParts(idToken);
  assert.deepEqual(header, { alg: "RS256", kid: emu.idTokenKeyIds().signing, typ: "JWT" });
  assert.ok(emu.idTokenKeyIds().published.includes(String(header.kid)));

  const payload = await verifyIdToken(emu, idToken, DEMO_CLIENT.clientId);
  assert.equal(payload.iss, "https://accounts.google.com");
  assert.equal(payload.aud, DEMO_CLIENT.clientId);
  assert.equal(payload.azp, DEMO_CLIENT.clientId);
  assert.match(payload.sub, /^\d{21}$/);
  assert.equal(payload.email, "alice@example.com");
  assert.equal(payload.email_verified, true);
  assert.equal(payload.exp - payload.iat, 3600);
  const hash = createHash("sha256").update(String(reply.json.access_token)).digest().subarray(0, 16);
  assert.equal(payload.at_hash, hash.toString("base64url"));

  await assert.rejects(verifyIdToken(emu, idToken, "someone-else"), /Wrong recipient/);
  await assert.rejects(
    verifyIdToken(emu, tampered(idToken, { email: "mallory@example.com" }), DEMO_CLIENT.clientId),
    /Invalid token signature/,
  );
});

test("/oauth2/v1/certs: an X.509 certificate per published key; /oauth2/v3/certs: the same keys as JWKs; both cacheable", async () => {
  const idToken = String((await refreshIdToken(["openid", CLOUD])).json.id_token);
  const { header } = decodeJwtParts(idToken);
  const [signingInput, signature] = [idToken.split(".").slice(0, 2).join("."), idToken.split(".")[2]];
  const before = emu.stats().certRequests;

  const pemRes = await fetch(`${emu.url}/oauth2/v1/certs`);
  assert.equal(pemRes.status, 200);
  assert.match(String(pemRes.headers.get("cache-control")), /^public, max-age=\d+, must-revalidate, no-transform$/);
  const pems = (await pemRes.json()) as Record<string, string>;
  assert.deepEqual(Object.keys(pems), emu.idTokenKeyIds().published);
  for (const [kid, pem] of Object.entries(pems)) {
    assert.match(kid, /^[0-9a-f]{40}$/);
    const cert = new X509Certificate(pem);
    assert.equal(cert.subject, "CN=federated-signon.system.gserviceaccount.com");
    assert.equal(cert.issuer, cert.subject);
    assert.ok(cert.verify(cert.publicKey), "self-signed");
    assert.ok(new Date(cert.validTo).getTime() > Date.now() + 13 * 24 * 3600 * 1000);
  }
  const byCert = createVerify("RSA-SHA256")
    .update(signingInput)
    .verify(pems[String(header.kid)], signature, "base64url");
  assert.ok(byCert, "the token verifies with its kid's certificate");

  const jwkRes = await fetch(`${emu.url}/oauth2/v3/certs`);
  assert.match(String(jwkRes.headers.get("cache-control")), /max-age=\d+/);
  const { keys } = (await jwkRes.json()) as { keys: Record<string, string>[] };
  assert.deepEqual(
    keys.map((k) => k.kid),
    emu.idTokenKeyIds().published,
  );
  for (const key of keys) {
    assert.equal(key.kty, "RSA");
    assert.equal(key.alg, "RS256");
    assert.equal(key.use, "sig");
    assert.equal(key.e, "AQAB");
  }
  const jwk = keys.find((k) => k.kid === header.kid)!;
  const byJwk = createVerify("RSA-SHA256")
    .update(signingInput)
    .verify(createPublicKey({ key: jwk, format: "jwk" }), signature, "base64url");
  assert.ok(byJwk, "the token verifies with its kid's JWK");
  assert.equal(emu.stats().certRequests, before + 2);
  assert.equal((await fetch(`${emu.url}/oauth2/v1/certs`, { method: "POST" })).status, 405);
});

test("rotation: the next key is published before it signs; the one before is withdrawn two rotations on", async () => {
  const first = emu.idTokenKeyIds();
  assert.equal(first.published.length, 2);
  assert.equal(first.signing, first.published[0]);
  const tokenA = String((await refreshIdToken(["openid", CLOUD])).json.id_token);
  // A verifier that caches the keys (google-auth-library honours max-age), fetched before the rotation.
  const cached = new OAuth2Client({ endpoints: certEndpoints(emu) });
  await cached.verifyIdToken({ idToken: tokenA, audience: DEMO_CLIENT.clientId });

  const second = emu.rotateIdTokenKeys();
  assert.equal(second.signing, first.published[1], "the pre-published key signs now");
  assert.deepEqual(second.published.slice(0, 2), first.published);
  assert.equal(second.published.length, 3);
  const tokenB = String((await refreshIdToken(["openid", CLOUD])).json.id_token);
  assert.equal(decodeJwtParts(tokenB).header.kid, second.signing);
  await cached.verifyIdToken({ idToken: tokenB, audience: DEMO_CLIENT.clientId });
  await verifyIdToken(emu, tokenA, DEMO_CLIENT.clientId);

  // The admin API rotates too (another process's tests).
  const third = (await postForm(`${emu.url}/__emulator/rotate-id-token-keys`, {})).json as Record<string, unknown>;
  assert.equal(third.signing, second.published[2]);
  assert.deepEqual((third.published as string[]).slice(0, 2), second.published.slice(1), "the oldest withdrawn");
  await assert.rejects(verifyIdToken(emu, tokenA, DEMO_CLIENT.clientId), /No pem found for envelope/);
  await verifyIdToken(emu, tokenB, DEMO_CLIENT.clientId);
  const tokenC = String((await refreshIdToken(["openid", CLOUD])).json.id_token);
  // Two rotations outrun a cache, as with Google's keys.
  await assert.rejects(cached.verifyIdToken({ idToken: tokenC, audience: DEMO_CLIENT.clientId }), /No pem found/);
  const info = await fetch(`${emu.url}/tokeninfo?id_token=${tokenA}`);
  assert.equal(info.status, 400);
});

test("tokeninfo checks an ID token's signature: claims as strings, the header's alg and kid; forgeries refused", async () => {
  const reply = await refreshIdToken(["openid", "email", CLOUD]);
  const idToken = String(reply.json.id_token);
  const res = await fetch(`${emu.url}/tokeninfo?id_token=${idToken}`);
  assert.equal(res.status, 200);
  const info = (await res.json()) as Record<string, string>;
  assert.equal(info.alg, "RS256");
  assert.equal(info.kid, decodeJwtParts(idToken).header.kid);
  assert.equal(info.iss, "https://accounts.google.com");
  assert.equal(info.email_verified, "true");
  assert.equal(typeof info.exp, "string");

  // HS256 keyed with the published certificate: the classic algorithm-confusion forgery.
  const pems = (await (await fetch(`${emu.url}/oauth2/v1/certs`)).json()) as Record<string, string>;
  const kid = emu.idTokenKeyIds().signing;
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${part({ alg: "HS256", kid, typ: "JWT" })}.${part(decodeJwtParts(idToken).claims)}`;
  const hs256 = `${input}.${createHmac("sha256", pems[kid]).update(input).digest("base64url")}`;
  for (const forged of [hs256, tampered(idToken, { sub: "1" }), `${idToken.split(".").slice(0, 2).join(".")}.`]) {
    const refused = await fetch(`${emu.url}/tokeninfo?id_token=${encodeURIComponent(forged)}`);
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), { error: "invalid_token", error_description: "Invalid Value" });
  }
});

test("the code exchange's ID token names the client and hashes its access token; stats count ID tokens by source", async () => {
  const before = emu.stats();
  const { verifier, challenge } = pkcePair();
  const result = await approveSignIn(
    authUrl(emu, {
      redirect_uri: receiver.redirectUri,
      scope: `openid email ${CLOUD}`,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }),
    { account: "bob@example.com" },
  );
  const reply = await tokenRequest(emu, {
    grant_type: "authorization_code",
    code: String(result.code),
    code_verifier: verifier,
    redirect_uri: receiver.redirectUri,
  });
  const payload = await verifyIdToken(emu, String(reply.json.id_token), DEMO_CLIENT.clientId);
  assert.equal(payload.email, "bob@example.com");
  assert.equal(payload.azp, DEMO_CLIENT.clientId);
  const hash = createHash("sha256").update(String(reply.json.access_token)).digest().subarray(0, 16);
  assert.equal(payload.at_hash, hash.toString("base64url"));
  const after = emu.stats();
  assert.equal(after.idTokens, before.idTokens + 1);
  assert.equal(after.idTokensBySource.authorization_code, (before.idTokensBySource.authorization_code ?? 0) + 1);
});

test("refresh grant with `audience` (IAP's desktop flow): an ID token for another client of the same project", async () => {
  const before = emu.stats().idTokensBySource.refresh_token ?? 0;
  const reply = await refreshIdToken(["openid", "email"], { audience: IAP_CLIENT.clientId });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  assert.equal(typeof reply.json.access_token, "string", "the whole token reply, access token included");
  const payload = await verifyIdToken(emu, String(reply.json.id_token), IAP_CLIENT.clientId);
  assert.equal(payload.aud, IAP_CLIENT.clientId);
  assert.equal(payload.azp, DEMO_CLIENT.clientId, "azp names the client that asked");
  assert.equal(payload.email, "alice@example.com");
  assert.equal(emu.stats().idTokensBySource.refresh_token, before + 1);

  // The client's own id is an audience of its own project too.
  const own = await refreshIdToken(["openid"], { audience: DEMO_CLIENT.clientId });
  assert.equal((await verifyIdToken(emu, String(own.json.id_token), DEMO_CLIENT.clientId)).aud, DEMO_CLIENT.clientId);
  // Without openid there is no ID token, audience or not.
  const noOpenid = await refreshIdToken([CLOUD], { audience: IAP_CLIENT.clientId });
  assert.equal(noOpenid.status, 200);
  assert.equal(noOpenid.json.id_token, undefined);
});

test("refresh grant with an `audience` that is no client of the project: Google's invalid_audience", async () => {
  const expected = {
    error: "invalid_audience",
    error_description: "The audience client and the client need to be in the same project.",
  };
  for (const audience of ["https://hello-abc-uc.a.run.app", FOREIGN_CLIENT.clientId]) {
    const reply = await refreshIdToken(["openid", "email"], { audience });
    assert.equal(reply.status, 400, audience);
    assert.deepEqual(reply.json, expected, audience);
  }
  // A client of another project asking for the IAP client (gcloud's ADC client, in google-auth-library-python#669).
  const reply = await refreshGrant(emu, {
    client: FOREIGN_CLIENT,
    scopes: ["openid", "email"],
    audience: IAP_CLIENT.clientId,
  });
  assert.deepEqual(reply.json, expected);
});

test("JWT-bearer grant with target_audience: {id_token} only; google-auth-library's JWT.fetchIdToken gets one that verifies", async () => {
  const key = emu.createServiceAccountKey({ projectId: "sa-project" });
  const keyFile = join(home, "sa.json");
  writeFileSync(keyFile, JSON.stringify(key), { mode: 0o600 });
  const jwt = new JWT({ keyFile });
  pointJwtAt(jwt, `${emu.url}/token`);
  const audience = "https://hello-abc-uc.a.run.app";
  const idToken = await jwt.fetchIdToken(audience);
  const payload = await verifyIdToken(emu, idToken, audience);
  assert.equal(payload.iss, "https://accounts.google.com");
  assert.equal(payload.sub, key.client_id, "sub: the account's unique id");
  assert.equal(payload.azp, key.client_id);
  assert.equal(payload.email, key.client_email);
  assert.equal(payload.email_verified, true);
  assert.equal(payload.at_hash, undefined);

  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: key.client_email, aud: key.token_uri, iat: now, exp: now + 3600, target_audience: audience };
  const assertion = signAssertion(key.private_key, claims, { alg: "RS256", typ: "JWT", kid: key.private_key_id });
  const raw = await postForm(`${emu.url}/token`, {
    grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
    assertion,
  });
  assert.deepEqual(Object.keys(raw.json), ["id_token"], "no access_token, expires_in or token_type");
  assert.ok((emu.stats().idTokensBySource["jwt-bearer"] ?? 0) >= 2);
});

test("metadata identity: standard has no e-mail; full adds email and google.compute_engine; licenses=TRUE adds license_id", async () => {
  const audience = "https://svc.example";
  const standard = await md(`identity?audience=${audience}`);
  assert.equal(standard.status, 200);
  assert.equal(standard.headers.get("metadata-flavor"), "Google");
  const plain = await verifyIdToken(emu, await standard.text(), audience);
  assert.equal(plain.email, undefined);
  assert.ok(!("google" in plain), "no google.compute_engine in the standard format");
  assert.match(plain.sub, /^\d{21}$/);
  assert.equal(plain.azp, plain.sub);

  const full = await verifyIdToken(emu, await (await md(`identity?audience=${audience}&format=full`)).text(), audience);
  assert.equal(full.email, identity.email);
  assert.equal(full.email_verified, true);
  const ce = (full as unknown as { google: { compute_engine: Record<string, unknown> } }).google.compute_engine;
  const text = (path: string) =>
    fetch(`${emu.url}/computeMetadata/v1/${path}`, { headers: { "Metadata-Flavor": "Google" } }).then((r) => r.text());
  assert.equal(ce.project_id, identity.projectId);
  assert.equal(ce.project_number, Number(await text("project/numeric-project-id")));
  assert.equal(ce.instance_id, await text("instance/id"));
  assert.equal(`projects/${ce.project_number}/zones/${ce.zone}`, await text("instance/zone"));
  assert.equal(`${ce.instance_name}.c.${identity.projectId}.internal`, await text("instance/hostname"));
  assert.equal(typeof ce.instance_creation_timestamp, "number");
  assert.equal(ce.license_id, undefined);
  const licensed = decodeJwtParts(await (await md(`identity?audience=${audience}&format=full&licenses=TRUE`)).text());
  const licensedCe = (licensed.claims.google as { compute_engine: Record<string, unknown> }).compute_engine;
  assert.ok(Array.isArray(licensedCe.license_id) && licensedCe.license_id.length > 0);
});

test("metadata identity refusals: no audience (GCE's text), an unknown format, no Metadata-Flavor", async () => {
  const missing = await md("identity");
  assert.equal(missing.status, 400);
  assert.equal(await missing.text(), "non-empty audience parameter required\n");
  assert.equal((await md("identity?audience=")).status, 400);
  const format = await md("identity?audience=a&format=compact");
  assert.equal(format.status, 400);
  assert.equal((await md("identity?audience=a", {})).status, 403);
});

test("google-auth-library's Compute.fetchIdToken (format=full) gets a metadata ID token that verifies", async () => {
  const before = emu.stats().idTokensBySource.metadata ?? 0;
  const audience = `${emu.url}/run/hello`;
  const idToken = await new Compute().fetchIdToken(audience);
  const payload = await verifyIdToken(emu, idToken, audience);
  assert.equal(payload.email, identity.email);
  assert.equal(emu.stats().idTokensBySource.metadata, before + 1);
});
