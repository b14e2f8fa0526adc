// `cred-auth print-token CREDENTIALS_PATH`: the hot path of shell scripts. With a cached token
// it loads only this module, the token cache and the credentials-file reader; refreshing
// (google-auth-library) lives in ./refresh.ts and is loaded only when a token is needed.
import { readAdcFileSync } from "../google/adc-file.js";
import type { CachedAccessToken } from "../access-token-cache/index.js";
import { fileToken } from "./file-token.js";
import { UsageError, parseScopes, type ParsedArgs } from "./args.js";
import { writeOut } from "./output.js";

type Format = "text" | "json" | "header";

/** Prints an access token for the credentials file in `args.positionals[0]`. */
export async function printToken(args: ParsedArgs): Promise<number> {
  const format = outputFormat(args.options.format, args.options.header === true);
  const path = args.positionals[0];
  const requested = typeof args.options.scopes === "string" ? parseScopes(args.options.scopes) : undefined;
  const file = readAdcFileSync(path);
  const fresh = args.options.fresh === true;
  if (file.type === "external_account" || file.type === "external_account_authorized_user") {
    const { externalToken } = require("./print-external.js") as typeof import("./print-external.js");
    return writeOut(formatToken(await externalToken(file, requested, fresh), format));
  }
  if (file.type === "impersonated_service_account") {
    const { impersonatedToken } = require("./print-impersonated.js") as typeof import("./print-impersonated.js");
    return writeOut(formatToken(await impersonatedToken(file, path, requested, fresh), format));
  }
  if (requested && file.type === "authorized_user")
    process.stderr.write(
      "cred-auth: warning: --scopes is ignored for user credentials; they keep the scopes granted at login.\n",
    );
  return writeOut(formatToken(await fileToken(file, path, requested, fresh), format));
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
