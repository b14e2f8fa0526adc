// `cred-auth print-token CREDENTIALS_PATH`: the hot path of shell scripts. With a cached token
// it loads only this module, the token cache and the credentials-file reader; refreshing
// (google-auth-library) lives in ./refresh.ts and is loaded only when a token is needed.
import { readAdcFileSync } from "../google/adc-file.js";
import { resolveEndpoints } from "../google/endpoints.js";
import { CLOUD_PLATFORM_SCOPE } from "../shared/constants.js";
import { type CachedAccessToken, getTokenWithCache, tokenCacheKey } from "../access-token-cache/index.js";
import { chooseTokenUrl } from "../google/token-requests.js";
import { UsageError, parseScopes, type ParsedArgs } from "./args.js";
import { writeOut } from "./output.js";

type Format = "text" | "json" | "header";

/** Prints an access token for the credentials file in `args.positionals[0]`. */
export async function printToken(args: ParsedArgs): Promise<number> {
  const format = outputFormat(args.options.format, args.options.header === true);
  const path = args.positionals[0];
  const requested = typeof args.options.scopes === "string" ? parseScopes(args.options.scopes) : undefined;
  const file = readAdcFileSync(path);
  if (file.type === "external_account" || file.type === "external_account_authorized_user") {
    const { externalToken } = require("./print-external.js") as typeof import("./print-external.js");
    return writeOut(formatToken(await externalToken(file, requested, args.options.fresh === true), format));
  }
  let scopes: string[];
  if (file.type === "service_account") {
    scopes = requested ?? [CLOUD_PLATFORM_SCOPE];
  } else {
    if (requested)
      process.stderr.write(
        "cred-auth: warning: --scopes is ignored for user credentials; they keep the scopes granted at login.\n",
      );
    scopes = file.scopes ?? [];
  }
  const key = tokenCacheKey(
    file,
    scopes,
    chooseTokenUrl(file.token_uri, resolveEndpoints(process.env, { announce: false })),
  );
  const refresh = (): Promise<CachedAccessToken> =>
    (require("./refresh.js") as typeof import("./refresh.js")).obtainToken(file, path, scopes);
  const token = await getTokenWithCache(key, refresh, { fresh: args.options.fresh === true });
  return writeOut(formatToken(token, format));
}

/** The token as printed: alone, as a header line, or as JSON. */
export function formatToken(token: CachedAccessToken, format: Format): string {
  if (format === "header") return `Authorization: Bearer ${token.access_token}\n`;
  if (format === "json") {
    return `${JSON.stringify({
      access_token: token.access_token,
      expiry: new Date(token.expiry_date).toISOString(),
      token_type: "Bearer",
    })}\n`;
  }
  return `${token.access_token}\n`;
}

function outputFormat(format: string | boolean | undefined, header: boolean): Format {
  if (format !== undefined && format !== "text" && format !== "json")
    throw new UsageError("--format must be text or json");
  if (header && format === "json") throw new UsageError("--header and --format json cannot be combined");
  if (header) return "header";
  return format === "json" ? "json" : "text";
}
