// `npm run demo`: cred-auth's main job, end to end, on this machine with no internet. The emulator
// stands in for Google: `cred-auth login` signs in (headless Chromium clicks Allow, or the
// simulated browser when there is no Chromium), `cred-auth print-token` prints a token, and the
// token fetches gs://demo-bucket/hello.txt from the emulator's Cloud Storage API.
// Everything lives in a temp dir that is removed at the end; nothing touches your ~/.config.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fetch from "node-fetch";
import { approveSignIn, startEmulator } from "cred-auth/emulator";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ACCOUNT = "alice@example.com";
const STEP_TIMEOUT_MS = 120_000;

const say = (line = "") => console.log(line);
const indent = (text) => text.trimEnd().replace(/^/gm, "   | ");
/** Shows enough of a token to recognize it, never the whole secret. */
const mask = (token) => `${token.slice(0, 14)}... (${token.length} characters)`;

/** Runs the cred-auth CLI; `onLine` sees each line of its stderr as it comes. Rejects on a non-zero exit. */
function credAuth(args, env, onLine = () => {}) {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let pending = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) onLine(line);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), STEP_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (pending) onLine(pending);
      if (code === 0) resolve({ stdout, stderr });
      else reject(Object.assign(new Error(`cred-auth ${args[0]} exited with ${code}`), { stderr }));
    });
  });
}

/** Plays the person at the browser: choose the account, press Allow, land on cred-auth's loopback page. */
async function signIn(authUrl, redirectUri) {
  if (!existsSync(CHROMIUM)) {
    say(`   (no Chromium at ${CHROMIUM}: the simulated browser submits the consent page over HTTP)`);
    const result = await approveSignIn(authUrl, { account: ACCOUNT });
    if (result.error || result.status !== 200)
      throw new Error(`the sign-in did not complete: ${result.error ?? result.status}`);
    return;
  }
  say(`   headless Chromium (${CHROMIUM}) opens the consent page, picks ${ACCOUNT} and presses Allow`);
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--no-proxy-server"] });
  try {
    const page = await browser.newPage();
    await page.goto(authUrl);
    await page.getByRole("radio", { name: ACCOUNT }).check();
    await page.getByRole("button", { name: "Allow", exact: true }).click();
    await page.waitForURL((url) => url.toString().startsWith(redirectUri));
    const landed = (await page.locator("body").innerText()).trim().split("\n")[0];
    say(`   the browser landed on cred-auth's page: "${landed}"`);
  } finally {
    await browser.close();
  }
}

const AUTH_URL = /https?:\/\/\S+\/o\/oauth2\/v2\/auth\?\S+/;

async function main() {
  const work = mkdtempSync(join(tmpdir(), "cred-auth-demo-"));
  const emulator = await startEmulator();
  try {
    const env = {
      ...process.env,
      HOME: join(work, "home"),
      XDG_CONFIG_HOME: join(work, "home", ".config"),
      XDG_CACHE_HOME: join(work, "home", ".cache"),
      CRED_AUTH_EMULATOR_HOST: emulator.host,
      CRED_AUTH_TOKEN_CACHE: join(work, "token-cache"),
      CRED_AUTH_HOSTED: "off",
      NO_PROXY: ["127.0.0.1", "localhost", process.env.NO_PROXY].filter(Boolean).join(","),
    };
    delete env.GOOGLE_APPLICATION_CREDENTIALS;
    const credentials = join(work, "credentials.json");

    say("cred-auth demo: sign in, save credentials, print a token, call an API, all on this machine.");
    say(`1. The emulator stands in for Google (OAuth + Cloud Storage) at ${emulator.url}`);
    say(`   CRED_AUTH_EMULATOR_HOST=${emulator.host} sends cred-auth there instead of Google.`);

    say();
    say(`2. cred-auth login ${credentials} --use_local_webserver`);
    let signingIn;
    await credAuth(["login", credentials, "--use_local_webserver", "--no-browser", "--ui", "plain"], env, (line) => {
      const url = AUTH_URL.exec(line)?.[0];
      say(`   | ${line.replace(AUTH_URL, "<sign-in URL>")}`);
      if (!url || signingIn) return;
      const redirectUri = new URL(url).searchParams.get("redirect_uri") ?? "";
      say(`   login waits for the browser to come back to ${redirectUri}`);
      signingIn = signIn(url, redirectUri);
    });
    if (!signingIn) throw new Error("login finished without showing a sign-in URL");
    await signingIn;
    const saved = JSON.parse(readFileSync(credentials, "utf8"));
    const mode = (statSync(credentials).mode & 0o777).toString(8);
    say(`   the file: mode ${mode}, type ${saved.type}, fields ${Object.keys(saved).join(", ")}`);

    say();
    say(`3. cred-auth print-token ${credentials}`);
    const token = (await credAuth(["print-token", credentials], env)).stdout.trim();
    say(`   printed an access token: ${mask(token)}`);

    say();
    const url = `${emulator.url}/storage/v1/b/demo-bucket/o/hello.txt?alt=media`;
    say(`4. GET gs://demo-bucket/hello.txt with "Authorization: Bearer <token>" (node-fetch)`);
    say(`   ${url}`);
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    const body = await response.text();
    if (!response.ok) throw new Error(`the storage API answered ${response.status}: ${body}`);
    say(`   ${response.status} ${response.statusText}:`);
    say(indent(body));
    const anonymous = await fetch(url);
    say(`   (the same request without the token: ${anonymous.status} ${anonymous.statusText})`);

    say();
    say(
      "Done. With real Google: `npx cred-auth login credentials.json`, then use the file as ADC or with print-token.",
    );
  } finally {
    await emulator.close();
    rmSync(work, { recursive: true, force: true });
    say(`Cleaned up: emulator stopped, ${work} removed.`);
  }
}

main().catch((error) => {
  console.error(`\ndemo failed: ${error.message}`);
  if (error.stderr) console.error(indent(error.stderr));
  process.exitCode = 1;
});
