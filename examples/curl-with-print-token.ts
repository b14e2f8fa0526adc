// The README's curl example, in Node: `cred-auth print-token` prints an access token for a saved
// credentials file, which goes into an `Authorization: Bearer` header. In a shell:
//
//   curl -H "Authorization: Bearer $(npx cred-auth print-token credentials.json)" \
//     "https://storage.googleapis.com/storage/v1/b/BUCKET/o/OBJECT?alt=media"
//
//   node node_modules/cred-auth/examples/curl-with-print-token.js credentials.json BUCKET OBJECT
//
// EXAMPLE_API_URL: another Storage endpoint, e.g. the cred-auth emulator's http://127.0.0.1:PORT.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const [credentialsFile, bucket, object] = process.argv.slice(2);
if (!credentialsFile || !bucket || !object) {
  console.error("usage: node node_modules/cred-auth/examples/curl-with-print-token.js CREDENTIALS_FILE BUCKET OBJECT");
  process.exit(2);
}

/** The installed `cred-auth` command (what `npx cred-auth` runs). */
function credAuthBin(): string {
  const packageJson = fileURLToPath(import.meta.resolve("cred-auth/package.json"));
  const { bin } = JSON.parse(readFileSync(packageJson, "utf8")) as { bin: Record<string, string> };
  return join(dirname(packageJson), bin["cred-auth"] ?? "dist/cli.js");
}

try {
  const { stdout } = await promisify(execFile)(process.execPath, [credAuthBin(), "print-token", credentialsFile]);
  const token = stdout.trim();

  const api = process.env.EXAMPLE_API_URL || "https://storage.googleapis.com";
  const url = `${api}/storage/v1/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(object)}?alt=media`;
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  process.stdout.write(await response.text());
} catch (error) {
  // execFile's error carries print-token's own one-line message on stderr.
  const stderr = (error as { stderr?: string }).stderr?.trim();
  console.error(`curl-with-print-token failed: ${stderr || (error instanceof Error ? error.message : String(error))}`);
  process.exitCode = 1;
}
