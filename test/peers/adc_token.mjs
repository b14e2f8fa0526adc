// Application Default Credentials as a Node program gets them with google-auth-library itself:
// GoogleAuth's client for cloud-platform, then an access token. Prints {"token", "credentials",
// "version"} as JSON on stdout, as adc_token.py does. Run by google-auth-library.test.ts.
import { readFileSync } from "node:fs";
import { GoogleAuth } from "google-auth-library";

const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const manifest = new URL("../../node_modules/google-auth-library/package.json", import.meta.url);

try {
  const client = await new GoogleAuth({ scopes: [CLOUD_PLATFORM] }).getClient();
  const { token } = await client.getAccessToken();
  const { version } = JSON.parse(readFileSync(manifest, "utf8"));
  process.stdout.write(`${JSON.stringify({ token, credentials: client.constructor.name, version })}\n`);
} catch (error) {
  // The message and the server's reply, not the whole error object (its request holds the file's secrets).
  const reply = error?.response?.data;
  process.stderr.write(`${error?.message ?? error}${reply ? ` ${JSON.stringify(reply).slice(0, 500)}` : ""}\n`);
  process.exitCode = 1;
}
