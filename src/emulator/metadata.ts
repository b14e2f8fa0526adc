/**
 * A GCE metadata server under /computeMetadata/v1, enough for gcp-metadata and google-auth-library's
 * Compute client: detection (`instance`), project id, default service account e-mail, scopes,
 * access tokens, id tokens (`identity?audience=`), universe domain. On Compute Engine (the default
 * platform) the token path ignores `?scopes=` and hands out the VM's access scopes; on Cloud Run it
 * honours them (google-auth-library-python, compute_engine/credentials.py). Its errors are plain text.
 */
import { createHash } from "node:crypto";
import { EMULATOR_PATHS } from "../shared/constants.js";
import type { RequestContext } from "./context.js";
import { applyFault } from "./faults.js";
import { sendJson, sendText } from "./http.js";
import { metadataIdentity, type VmInstance } from "./id-tokens.js";
import type { MetadataIdentity } from "./types.js";

const FLAVOR = { "Metadata-Flavor": "Google" };

function sendMetadataText(ctx: RequestContext, status: number, text: string): void {
  sendText(ctx.res, status, text, { ...FLAVOR, "Content-Type": "application/text" });
}

function notFound(ctx: RequestContext): void {
  sendText(ctx.res, 404, "Not Found\n", FLAVOR);
}

/** A stable 12-digit project number for a project id. */
export function numericProjectId(projectId: string): string {
  const digest = createHash("sha256").update(projectId).digest();
  return (100_000_000_000n + (digest.readBigUInt64BE(0) % 900_000_000_000n)).toString();
}

/** The emulated VM as its identity tokens name it (the same values as the hostname, id and zone paths). */
function vmOf(identity: MetadataIdentity): VmInstance {
  const projectNumber = numericProjectId(identity.projectId);
  const id = projectNumber.split("").reverse().join("");
  return { projectId: identity.projectId, projectNumber, id, name: "emulator-vm", zone: "us-central1-a" };
}

/** True when the request carries `Metadata-Flavor: Google`; otherwise answers 403 like GCE. */
export function checkFlavor(ctx: RequestContext): boolean {
  if (ctx.req.headers["metadata-flavor"] === "Google") return true;
  sendText(ctx.res, 403, "Missing required header: Metadata-Flavor: Google\n", FLAVOR);
  return false;
}

function serviceAccountInfo(ctx: RequestContext, identity: MetadataIdentity): Record<string, unknown> {
  return { aliases: ["default"], email: identity.email, scopes: ctx.state.metadataScopes() };
}

function handleServiceAccount(ctx: RequestContext, identity: MetadataIdentity, rest: string[]): void {
  const { state, url } = ctx;
  const recursive = url.searchParams.get("recursive") === "true";
  const [leaf = "", ...extra] = rest;
  if (extra.length > 0) return notFound(ctx);
  switch (leaf) {
    case "":
      if (recursive) sendJson(ctx.res, 200, serviceAccountInfo(ctx, identity), FLAVOR);
      else sendMetadataText(ctx, 200, "aliases\nemail\nidentity\nscopes\ntoken\n");
      return;
    case "aliases":
      return sendMetadataText(ctx, 200, "default");
    case "email":
      return sendMetadataText(ctx, 200, identity.email);
    case "scopes":
      return sendMetadataText(ctx, 200, `${state.metadataScopes().join("\n")}\n`);
    case "token": {
      // A service account's tokens name its numeric unique id as client (tokeninfo's azp), as Google's do.
      const issued = state.issueAccessToken(
        { account: identity.email, scopes: tokenScopes(ctx), clientId: state.subjectOf(identity.email) },
        { offline: false },
      );
      sendJson(ctx.res, 200, { ...issued, token_type: "Bearer" }, FLAVOR);
      return;
    }
    case "identity": {
      const reply = metadataIdentity(state, identity.email, url.searchParams, vmOf(identity));
      return sendMetadataText(ctx, reply.status, reply.text);
    }
    default:
      return notFound(ctx);
  }
}

/**
 * The scopes of a metadata token. Compute Engine ignores `?scopes=`: a token always carries the
 * VM's access scopes, so a caller must check what it got. Cloud Run honours them.
 */
function tokenScopes(ctx: RequestContext): string[] {
  if (ctx.state.metadataPlatform === "compute-engine") return ctx.state.metadataScopes();
  const asked = (ctx.url.searchParams.get("scopes") ?? "").split(/[,\s]+/).filter(Boolean);
  return asked.length > 0 ? asked : ctx.state.metadataScopes();
}

/** Token and id-token requests: where a queued metadata fault (429, 5xx, ...) answers. */
function isCredentialPath(path: string): boolean {
  return /\/instance\/service-accounts\/[^/]+\/(token|identity)\/?$/.test(path);
}

const isTokenPath = (path: string): boolean => /\/instance\/service-accounts\/[^/]+\/token\/?$/.test(path);

/** Handles every path under /computeMetadata/v1 (the caller has matched the prefix). */
export async function handleMetadata(ctx: RequestContext): Promise<void> {
  if (!checkFlavor(ctx)) return;
  // Counted before a fault answers: a faulted token request is still a request (docs/emulator.md).
  if (isTokenPath(ctx.url.pathname)) ctx.state.stats.metadataTokenRequests += 1;
  if (isCredentialPath(ctx.url.pathname)) {
    const fault = ctx.state.takeMetadataFault();
    if (fault && !(await applyFault(ctx, fault, FLAVOR))) return;
  }
  answerMetadata(ctx);
}

function answerMetadata(ctx: RequestContext): void {
  if (ctx.req.method !== "GET" && ctx.req.method !== "HEAD") {
    sendText(ctx.res, 405, "Method Not Allowed\n", { ...FLAVOR, Allow: "GET" });
    return;
  }
  const identity = ctx.state.metadata;
  const parts = ctx.url.pathname.slice(EMULATOR_PATHS.metadata.length).split("/").filter(Boolean);
  const [section = "", ...rest] = parts;
  switch (section) {
    case "":
      return sendMetadataText(ctx, 200, "instance/\noauth/\nproject/\nuniverse/\n");
    case "universe":
      if (rest.join("/") === "universe-domain") return sendMetadataText(ctx, 200, "googleapis.com");
      if (rest.length === 0) return sendMetadataText(ctx, 200, "universe-domain\n");
      return notFound(ctx);
    case "project":
      if (!identity) return notFound(ctx);
      if (rest.length === 0) return sendMetadataText(ctx, 200, "attributes/\nnumeric-project-id\nproject-id\n");
      if (rest.join("/") === "project-id") return sendMetadataText(ctx, 200, identity.projectId);
      if (rest.join("/") === "numeric-project-id")
        return sendMetadataText(ctx, 200, numericProjectId(identity.projectId));
      return notFound(ctx);
    case "instance":
      return handleInstance(ctx, identity, rest);
    default:
      return notFound(ctx);
  }
}

function handleInstance(ctx: RequestContext, identity: MetadataIdentity | null, rest: string[]): void {
  // The instance directory answers even without an identity: the server exists (like Colab before
  // sign-in), it just has no service account to hand out.
  if (rest.length === 0) return sendMetadataText(ctx, 200, "attributes/\nhostname\nid\nservice-accounts/\nzone\n");
  if (!identity) return notFound(ctx);
  const [name, account, ...more] = rest;
  const number = numericProjectId(identity.projectId);
  switch (name) {
    case "hostname":
      return rest.length === 1
        ? sendMetadataText(ctx, 200, `emulator-vm.c.${identity.projectId}.internal`)
        : notFound(ctx);
    case "id":
      return rest.length === 1 ? sendMetadataText(ctx, 200, number.split("").reverse().join("")) : notFound(ctx);
    case "zone":
      return rest.length === 1 ? sendMetadataText(ctx, 200, `projects/${number}/zones/us-central1-a`) : notFound(ctx);
    case "service-accounts":
      if (account === undefined) {
        if (ctx.url.searchParams.get("recursive") === "true") {
          const info = serviceAccountInfo(ctx, identity);
          sendJson(ctx.res, 200, { default: info, [identity.email]: info }, FLAVOR);
        } else {
          sendMetadataText(ctx, 200, `default/\n${identity.email}/\n`);
        }
        return;
      }
      if (account !== "default" && account !== identity.email) return notFound(ctx);
      return handleServiceAccount(ctx, identity, more);
    default:
      return notFound(ctx);
  }
}
