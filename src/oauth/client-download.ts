/**
 * The client-secret file `cred-auth config init` suggests: the newest `client_secret_*.json` in
 * ~/Downloads, where a browser puts the console's download, and only one that passes the
 * file-trust rule (trust/files.ts): a regular file (no link) of the current user's that others may
 * not write, in a Downloads directory of the user's that others may not write. A file another user
 * planted there is never suggested: its client would decide who signs in.
 */
import { type Stats, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ownedPrivately } from "../trust/files.js";

/** The newest trusted `client_secret*.json` in `HOME/Downloads`, or undefined (none, or none trusted). */
export function newestDownload(home: string | undefined): string | undefined {
  if (!home) return undefined;
  const downloads = join(home, "Downloads");
  const directory = statOf(downloads);
  if (directory === undefined || !directory.isDirectory() || !ownedPrivately(directory)) return undefined;
  let names: string[];
  try {
    names = readdirSync(downloads).filter((n) => /^client_secret.*\.json$/.test(n));
  } catch {
    return undefined;
  }
  const trusted = names
    .map((name) => ({ path: join(downloads, name), stats: statOf(join(downloads, name)) }))
    .filter((c): c is { path: string; stats: Stats } => c.stats?.isFile() === true && ownedPrivately(c.stats));
  return trusted.sort((a, b) => b.stats.mtimeMs - a.stats.mtimeMs)[0]?.path;
}

/** The path's own stats (a link is a link, not what it names), or undefined when it cannot be read. */
function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
