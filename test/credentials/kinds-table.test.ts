// The kinds table (credentials/kinds/table.ts) and what every kind shares (kind.ts, google-credentials.ts): a
// file's `type` chooses its kind and its parser, a client's recorded type (else its class) chooses its kind,
// and the shared token helpers key, cache and word their entries as print-token does.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  Compute,
  ExternalAccountAuthorizedUserClient,
  IdentityPoolClient,
  Impersonated,
  JWT,
  OAuth2Client,
  UserRefreshClient,
} from "google-auth-library";
import { ERROR_CODES } from "cred-auth";
import {
  credentialsCachedTokens,
  entryFromCredentials,
  optional,
  universeFor,
} from "../../dist/credentials/kinds/google-credentials.js";
import { cachedClientIdToken, cachedIdToken, sourceRequestOf } from "../../dist/credentials/kinds/kind.js";
import { parseServiceAccountKey } from "../../dist/credentials/kinds/key/file.js";
import { keyKind } from "../../dist/credentials/kinds/key/index.js";
import { clientTypeOf, kindNamed, kindOf, parseAdcBytes, readAdcFile } from "../../dist/credentials/kinds/table.js";
import { userKind } from "../../dist/credentials/kinds/user/index.js";
import { idTokenCacheKey, idTokenKeyOwner, tokenCacheKey } from "../../dist/formats/cache-keys.js";
import { recordType } from "../../dist/protocols/info.js";
import { readCachedToken } from "../../dist/token-cache/store.js";
import { trustedUniverse } from "../../dist/trust/urls.js";
import { isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const AUDIENCE = "//iam.googleapis.com/locations/global/workforcePools/pool/providers/idp";
const bytes = (json: unknown) => new TextEncoder().encode(JSON.stringify(json));
const key = emulator.createServiceAccountKey({ projectId: "table-project" });
const user = {
  type: "authorized_user",
  client_id: "id.apps.example",
  client_secret: "secret",
  refresh_token: "1//refresh",
};

test("a file's type chooses its kind and its parser; a type cred-auth does not read is none", () => {
  const parsed = parseAdcBytes(bytes(key), "key.json");
  assert.equal(parsed.type, "service_account");
  assert.equal(kindOf(parsed), keyKind);
  assert.equal(kindOf(parseAdcBytes(bytes(user), "user.json")), userKind);
  assert.equal(kindNamed("service_account"), keyKind);
  for (const type of ["external_account", "impersonated_service_account", "external_account_authorized_user"])
    assert.ok(kindNamed(type), type);
  assert.equal(kindNamed("impersonated_service_account"), kindNamed("impersonated_service_account"), "made once");
  for (const type of [undefined, 7, "toString", "hasOwnProperty", "gdch_service_account"])
    assert.equal(kindNamed(type), undefined, String(type));
  assert.throws(() => parseAdcBytes(bytes({ type: "gdch_service_account" }), "gdch.json"), {
    code: ERROR_CODES.FILE_INVALID,
    message: /gdch\.json.*has type "gdch_service_account"; cred-auth accepts/,
  });
  const path = join(home, "table-key.json");
  writeFileSync(path, JSON.stringify(key), { mode: 0o600 });
  assert.equal(readAdcFile(path).type, "service_account");
});

test("a client's recorded type chooses its kind; a client the caller built, its class; anything else none", async () => {
  const sts = "https://sts.googleapis.com/v1/token";
  const built: [object, string | undefined][] = [
    [new UserRefreshClient({ clientId: "id", clientSecret: "s", refreshToken: "r" }), "authorized_user"],
    [new JWT({ email: key.client_email, key: key.private_key }), "service_account"],
    [
      new Impersonated({ sourceClient: new OAuth2Client(), targetPrincipal: "sa@p.iam.gserviceaccount.com" }),
      "impersonated_service_account",
    ],
    [
      new IdentityPoolClient({
        type: "external_account",
        audience: AUDIENCE,
        subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
        token_url: sts,
        credential_source: { file: join(home, "subject") },
      }),
      "external_account",
    ],
    [
      new ExternalAccountAuthorizedUserClient({
        type: "external_account_authorized_user",
        audience: AUDIENCE,
        client_id: "id",
        client_secret: "s",
        refresh_token: "r",
        token_url: sts,
        token_info_url: "https://sts.googleapis.com/v1/introspect",
      }),
      "external_account_authorized_user",
    ],
    [new Compute(), "metadata server"],
    [new OAuth2Client(), undefined],
    [recordType(new OAuth2Client(), "external_account"), "external_account"],
    [recordType(new OAuth2Client(), "metadata server"), "metadata server"],
    [recordType(new OAuth2Client(), "ID token"), undefined],
    [recordType(new JWT({ email: key.client_email, key: key.private_key }), "ID token"), "service_account"],
  ];
  for (const [client, type] of built)
    assert.equal(await clientTypeOf(client as OAuth2Client), type, `${client.constructor.name} -> ${type}`);
});

test("an ID token is cached under the credentials' key, the audience and the e-mail claim, as an id_token entry", async () => {
  const dir = join(home, "id-tokens");
  const accessKey = tokenCacheKey({ type: "service_account", clientEmail: "a@b", privateKey: "k" }, [], "u");
  const exp = Date.now() + 3_600_000;
  let minted = 0;
  const mint = async () => ({ idToken: `token-${++minted}`, expiresAt: exp });
  const cache = { fresh: false, dir };
  const entry = await cachedIdToken(accessKey, { audience: "aud", includeEmail: false, cache }, mint);
  assert.deepEqual(entry, { access_token: "token-1", expiry_date: exp, token_type: "id_token" });
  const stored = readCachedToken(idTokenCacheKey(accessKey, { audience: "aud", includeEmail: false }), { dir });
  assert.equal(stored?.access_token, "token-1");
  await cachedIdToken(accessKey, { audience: "aud", includeEmail: true, cache }, mint);
  await cachedIdToken(accessKey, { audience: undefined, includeEmail: false, cache }, mint);
  assert.equal(minted, 3, "another e-mail claim, no audience: other entries");
  assert.ok(readCachedToken(idTokenCacheKey(accessKey, { includeEmail: false }), { dir }));
  assert.ok(idTokenCacheKey(accessKey, { includeEmail: false }).startsWith(idTokenKeyOwner(accessKey)));

  const env = { ...process.env, CRED_AUTH_TOKEN_CACHE: dir };
  const request = { audience: "aud", includeEmail: false, env, fromFile: mint, remembered: mint };
  assert.deepEqual(await cachedClientIdToken(accessKey, "aud", request, mint), { idToken: "token-1", expiresAt: exp });
  assert.equal(minted, 3, "the client's token is print-identity-token's entry");
});

test("an ID token's source asks its own default scopes, its cached token reused", () => {
  const universe = trustedUniverse(process.env);
  const cache = { fresh: true, dir: "/somewhere" as const };
  const request = { path: "p", env: {}, universe, audience: "a", includeEmail: true, cache };
  assert.deepEqual(sourceRequestOf(request), {
    ...request,
    requested: undefined,
    cache: { fresh: false, dir: "/somewhere" },
    warnings: [],
  });
});

test("a new token as the cache stores it: no token is an error naming the file, no expiry is now", () => {
  const scopes = ["s"];
  const entry = entryFromCredentials({ access_token: "t", expiry_date: 5 }, scopes, "f.json");
  assert.deepEqual(entry, { access_token: "t", expiry_date: 5, token_type: "Bearer", scopes: ["s"] });
  assert.notEqual(entry.scopes, scopes);
  const before = Date.now();
  const now = entryFromCredentials({ access_token: "t" }, scopes, "f.json").expiry_date;
  assert.ok(now >= before && now <= Date.now());
  assert.throws(() => entryFromCredentials({}, scopes, "f.json"), {
    code: ERROR_CODES.SERVER_ERROR,
    message: 'The token server returned no access token for "f.json".',
  });
});

test("the token cache entries of a file: under the emulator's token URL and Google's, once for a loopback one", () => {
  const universe = trustedUniverse(process.env);
  const google = { ...parseServiceAccountKey(key, "k.json"), tokenUrl: "https://oauth2.googleapis.com/token" };
  const both = credentialsCachedTokens(google, ["s"], { universe, path: "k.json" });
  assert.equal(new Set(both.keys).size, 2);
  assert.equal(both.owners.length, 2);
  assert.ok(both.keys.includes(tokenCacheKey(google, ["s"], "https://oauth2.googleapis.com/token")));
  assert.ok(both.owners.includes(idTokenKeyOwner(tokenCacheKey(google, [], "https://oauth2.googleapis.com/token"))));
  const local = parseServiceAccountKey(key, "k.json"); // the emulator's own token_uri
  const one = credentialsCachedTokens(local, ["s"], { universe, path: "k.json" });
  assert.deepEqual(one.keys, [tokenCacheKey(local, ["s"], local.tokenUrl)]);
});

test("the universe a loader trusts is the caller's decision, else the option's; optional() keeps what is set", () => {
  const decided = trustedUniverse(process.env);
  assert.equal(universeFor({ universe: decided, universeDomain: "other.example" }), decided);
  assert.throws(() => universeFor({ env: {}, universeDomain: "not a domain" }));
  assert.equal(universeFor({ env: {}, universeDomain: "example.com" }).domain, "example.com");
  assert.deepEqual(optional({ a: 1, b: undefined, c: "" }), { a: 1, c: "" });
});
