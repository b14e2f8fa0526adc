// `cred-auth revoke [FILE] [--force]`: ends a user's sign-in at Google and removes the file and the
// tokens cached for it (credentials/revoke.ts); what it did goes to stderr, one line each.
import { printable, quoted } from "../trust/text.js";
import type { ParsedArgs } from "./args.js";
import { credentialsRevocation } from "./lazy.js";
import { EXIT } from "./output.js";

/** Revokes `args.positionals[0]`, or the file default() would use. */
export async function revoke(args: ParsedArgs): Promise<number> {
  const done = await credentialsRevocation().revokeCredentials(args.positionals[0], {
    force: args.options.force === true,
  });
  const whose = done.account ? ` of ${printable(done.account)}` : "";
  if (done.revoked)
    process.stderr.write(
      `cred-auth: revoked the sign-in${whose} at Google: its refresh and access tokens no longer work.\n`,
    );
  else process.stderr.write(`cred-auth: warning: nothing was revoked (--force): ${printable(done.notRevoked ?? "")}\n`);
  const tokens = done.cacheEntriesRemoved === 1 ? "1 cached token" : `${done.cacheEntriesRemoved} cached tokens`;
  process.stderr.write(`cred-auth: removed ${quoted(done.path)} and ${tokens}.\n`);
  return EXIT.ok;
}
