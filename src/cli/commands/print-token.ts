// `cred-auth print-token [FILE]`, shell scripts' hot path: the token cache, a refresh only on a miss
// (credentials/tokens/file-token.ts); without FILE, where default() looks (search/token-search.ts, loaded then).
import { accessTokenForFile } from "../../credentials/tokens/file-token.js";
import { accessTokenFromSearch } from "../../credentials/search/token-search.js";
import { CLOUD_PLATFORM_SCOPE } from "../../shared/constants.js";
import { UsageError, defineCommand, flag, oneOf, parseScopes } from "../command.js";
import { writeOut } from "../output.js";

/** The optional FILE of the commands that otherwise look where default() looks. */
export const SEARCHED_FILE = (what: string, after = "") =>
  [
    "[FILE]",
    `an ADC file; without it, ${what}: GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata server, the cached sign-in${after}`,
  ] as const;

export const printToken = defineCommand({
  name: "print-token",
  summary:
    "Print an access token for a credentials file (any Application Default Credentials type) or the credentials default() would use.",
  words: [SEARCHED_FILE("the credentials default() would use", " (never a new sign-in)")],
  flags: {
    scopes: flag(
      "--scopes",
      `comma-separated scopes for a key, an impersonated or a federated file (default: ${CLOUD_PLATFORM_SCOPE}); user files keep their granted scopes`,
      "S1,S2",
    ),
    fresh: flag("--fresh", "ignore the token cache and get a new token"),
    format: flag(
      "--format",
      'text: the token alone (default); json: {"access_token","expiry","token_type"}',
      "text|json",
    ),
    header: flag("--header", "print an HTTP header line: Authorization: Bearer TOKEN"),
  },
  more: () =>
    [
      "A token with more than 5 minutes left is reused from the token cache, so scripts may call print-token often:",
      '  curl -H "Authorization: Bearer $(cred-auth print-token creds.json)" \\',
      '    "https://storage.googleapis.com/storage/v1/b/BUCKET/o/OBJECT?alt=media"',
    ].join("\n"),
  async run({ words: [path], flags }) {
    const format = oneOf(flags.format, ["text", "json"] as const, "--format") ?? "text";
    if (flags.header && format === "json") throw new UsageError("--header and --format json cannot be combined");
    const options = {
      ...(flags.scopes === undefined ? {} : { scopes: parseScopes(flags.scopes) }),
      fresh: flags.fresh === true,
    };
    const token = path === undefined ? await accessTokenFromSearch(options) : await accessTokenForFile(path, options);
    if (token.scopesIgnored)
      process.stderr.write(
        "cred-auth: warning: --scopes is ignored for user credentials; they keep the scopes granted at login.\n",
      );
    // One line each, made printable by the library (a rotated refresh token that could not be kept).
    for (const warning of token.warnings) process.stderr.write(`cred-auth: warning: ${warning}\n`);
    if (flags.header) return writeOut(`Authorization: Bearer ${token.accessToken}\n`);
    if (format === "text") return writeOut(`${token.accessToken}\n`);
    const expiry = token.expiryDate === undefined ? {} : { expiry: new Date(token.expiryDate).toISOString() };
    return writeOut(`${JSON.stringify({ access_token: token.accessToken, ...expiry, token_type: "Bearer" })}\n`);
  },
});
