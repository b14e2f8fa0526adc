// `cred-auth print-token [FILE]`: the hot path of shell scripts. It parses the arguments, asks
// the library (credentials/tokens/file-token.ts: the token cache, then a refresh only on a miss) and
// prints; with a cached token and a FILE nothing heavier than the bundle loads. Without FILE it
// looks where default() looks (credentials/search/token-search.ts, loaded only then).
import { type FileToken, accessTokenForFile } from "../credentials/tokens/file-token.js";
import { UsageError, parseScopes, type ParsedArgs } from "./args.js";
import { tokenSearch } from "./lazy.js";
import { writeOut } from "./output.js";

type Format = "text" | "json" | "header";

/** Prints an access token for the credentials file in `args.positionals[0]`, or for what default() would use. */
export async function printToken(args: ParsedArgs): Promise<number> {
  const format = outputFormat(args.options.format, args.options.header === true);
  const path = args.positionals[0];
  const scopes = typeof args.options.scopes === "string" ? parseScopes(args.options.scopes) : undefined;
  const options = { ...(scopes ? { scopes } : {}), fresh: args.options.fresh === true };
  const token =
    path === undefined ? await tokenSearch().accessTokenFromSearch(options) : await accessTokenForFile(path, options);
  if (token.scopesIgnored)
    process.stderr.write(
      "cred-auth: warning: --scopes is ignored for user credentials; they keep the scopes granted at login.\n",
    );
  // One line each, made printable by the library (a rotated refresh token that could not be kept).
  for (const warning of token.warnings) process.stderr.write(`cred-auth: warning: ${warning}\n`);
  return writeOut(formatToken(token, format));
}

/** The token as printed: alone, as a header line, or as JSON. */
export function formatToken(token: Pick<FileToken, "accessToken"> & { expiryDate?: number }, format: Format): string {
  if (format === "header") return `Authorization: Bearer ${token.accessToken}\n`;
  if (format === "json") {
    return `${JSON.stringify({
      access_token: token.accessToken,
      ...(token.expiryDate === undefined ? {} : { expiry: new Date(token.expiryDate).toISOString() }),
      token_type: "Bearer",
    })}\n`;
  }
  return `${token.accessToken}\n`;
}

function outputFormat(format: string | boolean | undefined, header: boolean): Format {
  if (format !== undefined && format !== "text" && format !== "json")
    throw new UsageError("--format must be text or json");
  if (header && format === "json") throw new UsageError("--header and --format json cannot be combined");
  if (header) return "header";
  return format === "json" ? "json" : "text";
}
