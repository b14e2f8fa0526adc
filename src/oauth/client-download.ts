// The client-secret file `cred-auth config init` suggests, and its check as a "Desktop app" client's. Only the newest
// `client_secret_*.json` in ~/Downloads that passes the file-trust rule (trust/files.ts) is suggested: a file another
// user planted there never is, since its client would decide who signs in.
import { type Stats, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import { ownedPrivately } from "../trust/files.js";
import { isObject, parseObject } from "../formats/fields.js";
import { credentialsInsteadOfClient, readClientSecretText } from "./client.js";

/** A Desktop client's id and secret, and the project its file names. */
export interface DesktopClient {
  clientId: string;
  clientSecret: string;
  projectId?: string;
}

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

/** A "Desktop app" client file's id and secret (`{"installed": ...}`); else an error naming the file, never its content. */
export function desktopClient(path: string): DesktopClient {
  const section = installedSection(path);
  const { client_id: clientId, client_secret: clientSecret, redirect_uris: redirects, project_id: project } = section;
  if (typeof clientId !== "string" || !clientId.trim() || typeof clientSecret !== "string" || !clientSecret.trim())
    throw refused(`${path} lacks its client_id or client_secret: download the client's JSON again (step 3).`);
  if (!Array.isArray(redirects) || !redirects.some(isLoopbackRedirect))
    throw refused(
      `${path} is not a Desktop client: its redirect URIs do not include http://localhost. Create a "Desktop app" client (step 3) and download its JSON.`,
    );
  const projectId = typeof project === "string" && project.trim() ? project.trim() : undefined;
  return { clientId: clientId.trim(), clientSecret: clientSecret.trim(), ...(projectId ? { projectId } : {}) };
}

function installedSection(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readClientSecretText(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw refused(`Cannot read ${path} (${code}): give the path of the JSON file the console downloaded.`, error);
  }
  const json = parseObject(text);
  if (json && isObject(json.installed)) return json.installed;
  if (json && isObject(json.web))
    throw refused(
      `${path} holds a "Web application" client; signing in on this machine needs a "Desktop app" client: create one (step 3) and download its JSON.`,
    );
  const credentials = credentialsInsteadOfClient(text);
  throw refused(
    credentials
      ? `${path} ${credentials}; to sign in, download a "Desktop app" client's JSON (step 3).`
      : `${path} is not a Google client-secret JSON file (expected {"installed": {...}}): download the client's JSON from the console (step 3).`,
  );
}

/** `http://localhost`, `http://127.0.0.1` or `http://[::1]`, any port and path: what a Desktop client may redirect to. */
function isLoopbackRedirect(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  } catch {
    return false;
  }
}

function refused(message: string, cause?: unknown): CredCredentialsError {
  return new CredCredentialsError(message, { code: ERROR_CODES.FILE_INVALID, ...(cause ? { cause } : {}) });
}
