/**
 * Tiny fake Google APIs for demos and examples: Cloud Storage (list, download) over a seeded
 * in-memory bucket, and userinfo. Add a route to API_ROUTES to fake another API.
 */
import { createHash } from "node:crypto";
import { BIGQUERY_ROUTES } from "./apis-bigquery.js";
import { RESOURCE_MANAGER_ROUTES } from "./resource-manager.js";
import type { RequestContext } from "./context.js";
import { type ApiRoute, sendApiError, sendInsufficientScopes } from "./api-route.js";
import { API_METHODS } from "./api-scopes.js";
import { bearerToken, sendJson } from "./http.js";
import { EMAIL_SCOPE, isSignInScope } from "./scopes.js";
import type { AccessTokenInfo } from "./types.js";

// ---------------------------------------------------------------- storage

interface StoredObject {
  data: Buffer;
  contentType: string;
  created: string;
  generation: string;
}

const SEEDED_AT = "2024-01-01T00:00:00.000Z";
const BUCKETS = new Map<string, Map<string, StoredObject>>([
  [
    "demo-bucket",
    new Map([
      [
        "hello.txt",
        {
          data: Buffer.from("Hello from the cred-auth emulator!\n"),
          contentType: "text/plain",
          created: SEEDED_AT,
          generation: "1704067200000000",
        },
      ],
    ]),
  ],
]);

let crcTable: Uint32Array | undefined;

/** CRC32C (Castagnoli), which Cloud Storage clients use to validate downloads. */
function crc32c(data: Buffer): Buffer {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of data) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((crc ^ 0xffffffff) >>> 0);
  return out;
}

function objectResource(
  ctx: RequestContext,
  bucket: string,
  name: string,
  object: StoredObject,
): Record<string, unknown> {
  const base = ctx.state.baseUrl;
  const path = `/storage/v1/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(name)}`;
  return {
    kind: "storage#object",
    id: `${bucket}/${name}/${object.generation}`,
    selfLink: `${base}${path}`,
    mediaLink: `${base}/download${path}?generation=${object.generation}&alt=media`,
    name,
    bucket,
    generation: object.generation,
    metageneration: "1",
    contentType: object.contentType,
    storageClass: "STANDARD",
    size: String(object.data.length),
    md5Hash: createHash("md5").update(object.data).digest("base64"),
    crc32c: crc32c(object.data).toString("base64"),
    etag: "CAE=",
    timeCreated: object.created,
    updated: object.created,
    timeStorageClassUpdated: object.created,
  };
}

function bucketOr404(ctx: RequestContext, name: string): Map<string, StoredObject> | undefined {
  const bucket = BUCKETS.get(name);
  if (!bucket) sendApiError(ctx, 404, "NOT_FOUND", "The specified bucket does not exist.", "notFound");
  return bucket;
}

function listObjects(ctx: RequestContext, _caller: AccessTokenInfo, match: RegExpExecArray): void {
  const bucketName = decodeURIComponent(match[1]);
  const bucket = bucketOr404(ctx, bucketName);
  if (!bucket) return;
  const prefix = ctx.url.searchParams.get("prefix") ?? "";
  const items = [...bucket]
    .filter(([name]) => name.startsWith(prefix))
    .map(([name, object]) => objectResource(ctx, bucketName, name, object));
  sendJson(ctx.res, 200, { kind: "storage#objects", ...(items.length > 0 ? { items } : {}) });
}

function getObject(ctx: RequestContext, _caller: AccessTokenInfo, match: RegExpExecArray): void {
  const bucketName = decodeURIComponent(match[1]);
  const name = decodeURIComponent(match[2]);
  const bucket = bucketOr404(ctx, bucketName);
  if (!bucket) return;
  const object = bucket.get(name);
  if (!object) {
    sendApiError(ctx, 404, "NOT_FOUND", `No such object: ${bucketName}/${name}`, "notFound");
    return;
  }
  if (ctx.url.searchParams.get("alt") !== "media") {
    sendJson(ctx.res, 200, objectResource(ctx, bucketName, name, object));
    return;
  }
  const hashes = `crc32c=${crc32c(object.data).toString("base64")},md5=${createHash("md5").update(object.data).digest("base64")}`;
  ctx.res.writeHead(200, {
    "Content-Type": object.contentType,
    "Content-Length": object.data.length,
    "X-Goog-Hash": hashes,
    "X-Goog-Generation": object.generation,
    "X-Goog-Stored-Content-Length": String(object.data.length),
    "X-Goog-Stored-Content-Encoding": "identity",
  });
  ctx.res.end(object.data);
}

// ---------------------------------------------------------------- userinfo

/** google-api-nodejs-client#3900: Google's answer to a token without a sign-in scope. */
const NO_SIGN_IN_SCOPE =
  "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.";

/** Only for a sign-in scope (openid, email, profile); the e-mail only under the e-mail scope. */
function userInfo(ctx: RequestContext, caller: AccessTokenInfo): void {
  if (!caller.scopes.some(isSignInScope))
    return sendApiError(ctx, 401, "UNAUTHENTICATED", NO_SIGN_IN_SCOPE, "required");
  const email = caller.scopes.includes(EMAIL_SCOPE) ? { email: caller.account, email_verified: true } : {};
  sendJson(ctx.res, 200, { sub: ctx.state.subjectOf(caller.account), ...email });
}

const OBJECT = "([^/]+)";
export const API_ROUTES: ApiRoute[] = [
  {
    method: "GET",
    path: new RegExp(`^/storage/v1/b/${OBJECT}/o/?$`),
    ...API_METHODS["storage.objects.list"],
    handle: listObjects,
  },
  {
    method: "GET",
    path: new RegExp(`^/storage/v1/b/${OBJECT}/o/(.+)$`),
    ...API_METHODS["storage.objects.get"],
    handle: getObject,
  },
  {
    method: "GET",
    path: new RegExp(`^/download/storage/v1/b/${OBJECT}/o/(.+)$`),
    ...API_METHODS["storage.objects.get"],
    handle: getObject,
  },
  { method: "GET", path: /^\/oauth2\/v[23]\/userinfo$/, scopes: [], handle: userInfo },
  ...BIGQUERY_ROUTES,
  ...RESOURCE_MANAGER_ROUTES,
];

/**
 * Runs the API route matching this request, after checking its bearer token. False when no route
 * matches the path (the caller answers 404).
 */
export async function handleApi(ctx: RequestContext): Promise<boolean> {
  const path = ctx.url.pathname;
  const routes = API_ROUTES.filter((r) => r.path.test(path));
  if (routes.length === 0) return false;
  ctx.state.stats.apiRequests += 1;
  const method = ctx.req.method === "HEAD" ? "GET" : ctx.req.method;
  const route = routes.find((r) => r.method === method);
  if (!route) {
    sendApiError(ctx, 405, "METHOD_NOT_ALLOWED", "Method not allowed.", "methodNotAllowed");
    return true;
  }
  const token = bearerToken(ctx.req);
  const caller = token ? ctx.state.checkAccessToken(token) : null;
  if (!caller) {
    const message = token
      ? "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
      : "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.";
    sendApiError(ctx, 401, "UNAUTHENTICATED", message, token ? "authError" : "required");
    return true;
  }
  if (route.scopes.length > 0 && !caller.scopes.some((s) => route.scopes.includes(s))) {
    sendInsufficientScopes(ctx, route);
    return true;
  }
  const match = route.path.exec(path);
  if (match) await route.handle(ctx, caller, match);
  return true;
}
