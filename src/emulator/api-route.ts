/** What a fake Google API route is, and Google's JSON error shape for its replies. */
import type { RequestContext } from "./context.js";
import { sendJson } from "./http.js";
import type { AccessTokenInfo } from "./types.js";

export interface ApiRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Matched against the path (not the query); groups are passed to `handle`. */
  path: RegExp;
  /** The token must carry one of these scopes; empty: any valid token. */
  scopes: readonly string[];
  /** The service and RPC that Google's ErrorInfo names when the scopes fall short. */
  service?: string;
  rpc?: string;
  handle(ctx: RequestContext, caller: AccessTokenInfo, match: RegExpExecArray): void | Promise<void>;
}

/** Google's JSON error shape, as returned by its REST APIs. */
export function sendApiError(
  ctx: RequestContext,
  code: number,
  status: string,
  message: string,
  reason = "error",
): void {
  const headers: Record<string, string> = {};
  if (code === 401) headers["WWW-Authenticate"] = 'Bearer realm="https://accounts.google.com/"';
  sendJson(
    ctx.res,
    code,
    { error: { code, message, errors: [{ message, domain: "global", reason }], status } },
    headers,
  );
}

/** Google's 403 for a valid token whose scopes do not cover the method, with its ErrorInfo when the RPC is known. */
export function sendInsufficientScopes(ctx: RequestContext, route: ApiRoute): void {
  const { service, rpc } = route;
  const info = { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT" };
  sendJson(ctx.res, 403, {
    error: {
      code: 403,
      message: "Request had insufficient authentication scopes.",
      errors: [{ message: "Insufficient Permission", domain: "global", reason: "insufficientPermissions" }],
      status: "PERMISSION_DENIED",
      ...(rpc ? { details: [{ ...info, domain: "googleapis.com", metadata: { service, method: rpc } }] } : {}),
    },
  });
}
