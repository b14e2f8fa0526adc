/**
 * Cloud Resource Manager v1 `projects.get`, as far as the Google libraries use it: an
 * `external_account` client of google-auth-library (and GoogleAuth's `getClient()`) looks up the
 * project id of the pool's project number (or of `workforce_pool_user_project`) at
 * `cloudresourcemanager.googleapis.com/v1/projects/NUMBER`. The emulator knows one project by number,
 * the default workload pool's (123456789012, "emulator-project"); a project id is answered as itself.
 * Reference: cloud.google.com/resource-manager/reference/rest/v1/projects/get.
 */
import { createHash } from "node:crypto";
import { type ApiRoute, sendApiError } from "./api-route.js";
import type { RequestContext } from "./context.js";
import { DEFAULT_CONSUMER_PROJECT } from "./faults.js";
import { sendJson } from "./http.js";

const READ_SCOPES = [
  "https://www.googleapis.com/auth/cloud-platform",
  "https://www.googleapis.com/auth/cloud-platform.read-only",
];
const DEFAULT_PROJECT_ID = "emulator-project";
const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;

/** A stable 12-digit number for a project id the emulator was not told about. */
function numberOf(projectId: string): string {
  const digits = BigInt(`0x${createHash("sha256").update(projectId).digest("hex").slice(0, 12)}`) % 10n ** 11n;
  return String(100_000_000_000n + digits);
}

function project(projectNumber: string, projectId: string): Record<string, unknown> {
  return {
    projectNumber,
    projectId,
    lifecycleState: "ACTIVE",
    name: projectId,
    createTime: "2024-01-01T00:00:00.000Z",
  };
}

function getProject(ctx: RequestContext, _caller: unknown, match: RegExpExecArray): void {
  const asked = decodeURIComponent(match[1] ?? "");
  if (asked === DEFAULT_CONSUMER_PROJECT || asked === DEFAULT_PROJECT_ID)
    return sendJson(ctx.res, 200, project(DEFAULT_CONSUMER_PROJECT, DEFAULT_PROJECT_ID));
  if (PROJECT_ID.test(asked)) return sendJson(ctx.res, 200, project(numberOf(asked), asked));
  // Google answers a project the caller may not see, or that does not exist, alike.
  sendApiError(ctx, 403, "PERMISSION_DENIED", "The caller does not have permission", "forbidden");
}

export const RESOURCE_MANAGER_ROUTES: ApiRoute[] = [
  { method: "GET", path: /^\/v1\/projects\/([^/:]+)$/, scopes: READ_SCOPES, handle: getProject },
];
