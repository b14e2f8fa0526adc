// `cred-auth print-identity-token [FILE] [--audiences AUD] [--include-email]`, gcloud's flags:
// an ID token for a credentials file (or, without one, for what default() would use), on stdout
// alone, for `$(...)` in scripts. It parses, asks the library (credentials/tokens/id-token-file.ts: the
// token cache, then a new token only on a miss) and prints.
import { UsageError, type ParsedArgs } from "./args.js";
import { idTokenFile, tokenSearch } from "./lazy.js";
import { writeOut } from "./output.js";

/** Prints an ID token for `args.positionals[0]`, or for the credentials default() would use. */
export async function printIdentityToken(args: ParsedArgs): Promise<number> {
  const audience = audienceOf(args.options.audiences);
  const options = {
    ...(audience === undefined ? {} : { audience }),
    includeEmail: args.options.includeEmail === true,
    fresh: args.options.fresh === true,
  };
  const path = args.positionals[0];
  const token =
    path === undefined
      ? await tokenSearch().idTokenFromSearch(options)
      : await idTokenFile().idTokenForFile(path, options);
  return writeOut(`${token.idToken}\n`);
}

/** gcloud's `--audiences` takes one audience ("Currently, only one audience can be specified"). */
function audienceOf(value: string | boolean | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  if (value.includes(",")) throw new UsageError("--audiences takes one audience (as gcloud's: only one can be given)");
  return value;
}
