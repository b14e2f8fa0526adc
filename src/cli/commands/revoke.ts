// `cred-auth revoke [FILE] [--force] [--quiet]`: ends a user's sign-in and removes the file and its cached tokens
// (credentials/status/revoke.ts); a file nobody named goes only with a person's yes (Y/n as gcloud, or --quiet).
import { type FoundToRevoke, revokeCredentials } from "../../credentials/status/revoke.js";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { printable, quoted } from "../../trust/text.js";
import { defineCommand, flag } from "../command.js";
import { EXIT } from "../output.js";
import { terminalPrompt } from "../prompt.js";
import { SEARCHED_FILE } from "./print-token.js";

export const revoke = defineCommand({
  name: "revoke",
  summary: "Revoke a user's sign-in at Google, then remove the credentials file and the tokens cached for it.",
  words: [SEARCHED_FILE("revokes the file default() would use, once you say yes")],
  flags: {
    force: flag(
      "--force",
      "remove the file and its cached tokens even when nothing could be revoked (a key, a refusal)",
    ),
    quiet: flag(
      ["--quiet", "-q"],
      "do not ask (as gcloud's --quiet): revoke and remove the file found; needed without a terminal",
    ),
  },
  more: () =>
    [
      "User credentials (authorized_user, or an impersonated file with a user source): the refresh token is revoked at",
      "Google (or the emulator), which ends the whole grant. A key, a federation file or the metadata server cannot be",
      "revoked here: revoke says what to do instead and removes nothing, unless --force; nor when the revocation fails.",
      "A file GOOGLE_APPLICATION_CREDENTIALS names is revoked and removed only when given as FILE.",
    ].join("\n"),
  async run({ words: [path], flags }) {
    const done = await revokeCredentials(path, {
      force: flags.force === true,
      confirm: (found) => (flags.quiet ? Promise.resolve(true) : askToRevoke(found)),
    });
    const whose = done.account ? ` of ${printable(done.account)}` : "";
    if (done.revoked)
      say(
        `revoked the sign-in${whose} at ${printable(done.revokedAt ?? "Google")}: its refresh and access tokens no longer work.`,
      );
    else say(`warning: nothing was revoked (--force): ${printable(done.notRevoked ?? "")}`);
    const tokens = done.cacheEntriesRemoved === 1 ? "1 cached token" : `${done.cacheEntriesRemoved} cached tokens`;
    say(`removed ${quoted(done.path)} and ${tokens}.`);
    return EXIT.ok;
  },
});

const say = (line: string): boolean => process.stderr.write(`cred-auth: ${line}\n`);

/** What revoke is about to do to a file it found, in gcloud's words. */
function aboutTo(found: FoundToRevoke): string {
  const where = found.foundBy === "gcloud" ? "gcloud's ADC file" : "the cached sign-in of getUserCredentials()";
  const whose = found.account ? ` of ${found.account}` : "";
  const what =
    found.revokedAt === undefined
      ? `remove ${where} ${quoted(found.path)} and its cached tokens (its credentials cannot be revoked here)`
      : `revoke the sign-in${whose} at ${found.revokedAt} and remove ${where} ${quoted(found.path)} with its cached tokens`;
  return printable(`You are about to ${what}.`);
}

/** Asks Y/n at an interactive terminal, as gcloud's `auth application-default revoke`; without one, refuses. */
async function askToRevoke(found: FoundToRevoke): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY)
    throw new CredCredentialsError(
      `${aboutTo(found)} No terminal to ask whether to go on, so nothing was revoked or removed: run cred-auth revoke ${quoted(found.path)}, or add --quiet.`,
      { code: ERROR_CODES.NOT_CONFIRMED },
    );
  const prompt = await terminalPrompt("The revocation was cancelled; nothing was revoked or removed.");
  let answer: string;
  try {
    answer = await prompt.ask(`${aboutTo(found)}\nDo you want to continue (Y/n)? `);
  } catch {
    // Ctrl+C or Ctrl+D at the question: cancelled (exit 130).
    process.stderr.write("\n");
    return false;
  } finally {
    prompt.close();
  }
  if (/^(y(es)?)?$/i.test(answer.trim())) return true;
  // A no is an answer, not an interrupt: exit 1, as gcloud's "Aborted by user" and as without a terminal.
  throw new CredCredentialsError("Nothing was revoked or removed: the answer was no.", {
    code: ERROR_CODES.NOT_CONFIRMED,
  });
}
