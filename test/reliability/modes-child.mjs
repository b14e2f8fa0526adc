// Run by modes.test.ts under umask 000: everything cred-auth writes in one process. HOME and
// XDG_CACHE_HOME point into the test's directory; CRED_AUTH_EMULATOR_HOST at its emulator.
// Prints {"lockMode": N}: the token-cache lock exists only while held, so it is seen from inside.
import { statSync } from "node:fs";
import { join } from "node:path";
import { getUserCredentials, saveUserCredentials } from "cred-auth";
import { DEMO_CLIENT, approveSignIn } from "cred-auth/emulator";
import { writeUserCredentialsFile } from "../../dist/stores/credentials-file.js";
import { getTokenWithCache, tokenCacheDir } from "../../dist/token-cache/index.js";

const home = process.env.HOME;
const scopes = ["https://www.googleapis.com/auth/cloud-platform"];
const file = {
  type: "authorized_user",
  clientId: DEMO_CLIENT.clientId,
  clientSecret: DEMO_CLIENT.clientSecret,
  refreshToken: "modes-refresh-token",
  scopes,
};

await writeUserCredentialsFile(join(home, "new", "a", "b", "creds.json"), file);
await writeUserCredentialsFile(join(home, "existing", "loose.json"), file);

const presenter = { update: (event) => event.type === "url" && void approveSignIn(event.url) };
const signIn = { ...DEMO_CLIENT, presenter, openBrowser: false, useLocalWebserver: true, timeoutMs: 60_000 };
await getUserCredentials(scopes, signIn); // saved by the default cache: ~/.config/cred/cred_credentials.json
await saveUserCredentials(scopes, join(home, "saved", "deep", "adc.json"), signIn);

const key = "a".repeat(64);
let lockMode;
await getTokenWithCache(key, async () => {
  lockMode = statSync(join(tokenCacheDir(), `${key}.lock`)).mode & 0o777;
  return { access_token: "modes-access-token", expiry_date: Date.now() + 3_600_000, token_type: "Bearer" };
});
process.stdout.write(`${JSON.stringify({ lockMode })}\n`);
