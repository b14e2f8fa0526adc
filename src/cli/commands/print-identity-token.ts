// `cred-auth print-identity-token [FILE] [--audiences AUD] [--include-email]`, gcloud's flags: an ID token for a
// file (or what default() would use) on stdout alone, for `$(...)`; the token cache first, a new one on a miss.
import { idTokenFromSearch } from "../../credentials/search/token-search.js";
import { idTokenForFile } from "../../credentials/tokens/id-token-file.js";
import { UsageError, defineCommand, flag } from "../command.js";
import { writeOut } from "../output.js";
import { SEARCHED_FILE } from "./print-token.js";

export const printIdentityToken = defineCommand({
  name: "print-identity-token",
  summary:
    "Print an ID token (for Cloud Run, Cloud Run functions, IAP) for a credentials file or the credentials default() would use.",
  words: [SEARCHED_FILE("the credentials default() would use")],
  flags: {
    audiences: flag(
      ["--audiences", "--audience"],
      "who the token is for: the service's URL, an IAP client id, or a custom audience (one; required but for user credentials, which give their own client's token without it)",
      "AUD",
    ),
    includeEmail: flag(
      ["--include-email", "--include_email"],
      "put the service account's e-mail in an impersonated or federated token (keys and the metadata server always do)",
    ),
    fresh: flag("--fresh", "ignore the token cache and get a new token"),
  },
  more: () =>
    [
      "An ID token with more than 5 minutes left is reused from the token cache, as print-token's access tokens are.",
      "Call a private Cloud Run service (see docs/cloud-run-and-iap.md in the package for IAP and user credentials):",
      '  curl -H "Authorization: Bearer $(cred-auth print-identity-token key.json --audiences "$URL")" "$URL"',
    ].join("\n"),
  async run({ words: [path], flags }) {
    // gcloud's --audiences takes one audience ("Currently, only one audience can be specified").
    if (flags.audiences?.includes(","))
      throw new UsageError("--audiences takes one audience (as gcloud's: only one can be given)");
    const options = {
      ...(flags.audiences === undefined ? {} : { audience: flags.audiences }),
      includeEmail: flags.includeEmail === true,
      fresh: flags.fresh === true,
    };
    const token = path === undefined ? await idTokenFromSearch(options) : await idTokenForFile(path, options);
    return writeOut(`${token.idToken}\n`);
  },
});
