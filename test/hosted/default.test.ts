// default() with the hosted layer: a hosted platform first, any failure there falls back to ADC,
// then to the user sign-in, and the final error gives every step's reason (SPEC 3 rule 1).
// default() reads process.env, so this file sets it (restored after the file).
import assert from "node:assert/strict";
import { after, beforeEach, test } from "node:test";
import { join } from "node:path";
import { Compute } from "google-auth-library";
import * as credAuth from "cred-auth";
import type { Presenter } from "cred-auth";
import { approveSignIn } from "cred-auth/emulator";
import type { BrowserResult } from "cred-auth/emulator";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { isolateHome, startFakeKaggle, stderrOf } from "./support.ts";

const home = isolateHome();
const SCOPES = ["https://www.googleapis.com/auth/cloud-platform"];
const IDENTITY = { projectId: "colab-project", email: "colab-user@example.com" };

const emu = await withEmulator();
const kaggle = await startFakeKaggle("kaggle-secrets");
after(() => kaggle.close());
const adcFile = await testCredentialsFile(emu, join(home, "adc"), { scopes: SCOPES, account: "bob@example.com" });

const HOSTED_VARS = [
  "COLAB_RELEASE_TAG",
  "KAGGLE_KERNEL_RUN_TYPE",
  "KAGGLE_USER_SECRETS_TOKEN",
  "KAGGLE_URL_BASE",
  "KAGGLE_KERNEL_INTEGRATIONS",
  "CRED_AUTH_HOSTED",
];
const OTHER_VARS = [
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GCE_METADATA_HOST",
  "GCE_METADATA_IP",
  "GOOGLE_CLOUD_PROJECT",
  "GCLOUD_PROJECT",
  "CRED_AUTH_DEBUG",
  "CI",
  "JPY_PARENT_PID",
];

beforeEach(() => {
  for (const name of [...HOSTED_VARS, ...OTHER_VARS]) delete process.env[name];
  Object.assign(process.env, { CRED_AUTH_EMULATOR_HOST: emu.host, BROWSER: "none" });
  emu.setMetadata(null);
  kaggle.mode = "ok";
});

function inColab(): void {
  Object.assign(process.env, { COLAB_RELEASE_TAG: "release-colab_20250626", GCE_METADATA_HOST: emu.host });
}

function inKaggle(): void {
  Object.assign(process.env, {
    KAGGLE_KERNEL_RUN_TYPE: "Interactive",
    KAGGLE_USER_SECRETS_TOKEN: "kaggle-secrets",
    KAGGLE_URL_BASE: kaggle.urlBase,
    KAGGLE_KERNEL_INTEGRATIONS: "GCS",
  });
}

/** Options for a copy-paste sign-in played by the emulator's simulated browser. */
function signInAs(
  decision: "allow" | "deny",
): credAuth.DefaultOptions & { browser: () => Promise<BrowserResult> | undefined } {
  let browser: Promise<BrowserResult> | undefined;
  const presenter: Presenter = {
    update(event) {
      if (event.type === "url") {
        browser = approveSignIn(event.url, { account: "carol@example.com", decision });
        browser.catch(() => {});
      }
    },
    readCode: async () => (await browser!).code ?? "",
  };
  return {
    useLocalWebserver: false,
    openBrowser: false,
    presenter,
    credentialsCache: credAuth.cache.NOOP,
    browser: () => browser,
  };
}

async function accountOf(credentials: {
  getAccessToken(): Promise<{ token?: string | null }>;
}): Promise<string | undefined> {
  const { token } = await credentials.getAccessToken();
  return emu.checkAccessToken(token ?? "")?.account;
}

test("Colab, authorized: default() returns the platform's credentials and project, ADC untouched", async () => {
  inColab();
  emu.setMetadata(IDENTITY);
  process.env.GOOGLE_APPLICATION_CREDENTIALS = adcFile;
  const refreshes = emu.stats().byGrant.refresh_token ?? 0;
  const [credentials, projectId] = await credAuth.default(SCOPES);
  assert.ok(credentials instanceof Compute);
  assert.equal(projectId, "colab-project");
  assert.equal(await accountOf(credentials), IDENTITY.email);
  assert.equal(emu.stats().byGrant.refresh_token ?? 0, refreshes, "the ADC file was not used");
});

test("Colab, not yet authorized: default() falls back to ADC, with one debug line saying why", async () => {
  inColab();
  process.env.GOOGLE_APPLICATION_CREDENTIALS = adcFile;
  process.env.CRED_AUTH_DEBUG = "1";
  const { value, text } = await stderrOf(() => credAuth.default(SCOPES));
  const [credentials, projectId] = value;
  assert.equal(await accountOf(credentials), "bob@example.com", "the ADC file's user");
  assert.equal(projectId, null);
  const hostedLines = text.split("\n").filter((line) => /hosted environment/.test(line));
  assert.equal(hostedLines.length, 1, text);
  assert.match(hostedLines[0]!, /^cred-auth: .*colab.*HTTP 404.*auth\.authenticate_user\(\)/);
});

test("hosted: false and CRED_AUTH_HOSTED=off go straight to ADC, even in an authorized Colab", async () => {
  inColab();
  emu.setMetadata(IDENTITY);
  process.env.GOOGLE_APPLICATION_CREDENTIALS = adcFile;
  const before = emu.stats().metadataTokenRequests;
  const [viaOption] = await credAuth.default(SCOPES, { hosted: false });
  assert.equal(await accountOf(viaOption), "bob@example.com");
  process.env.CRED_AUTH_HOSTED = "off";
  const [viaEnv] = await credAuth.default(SCOPES);
  assert.equal(await accountOf(viaEnv), "bob@example.com");
  assert.equal(emu.stats().metadataTokenRequests, before, "the metadata server was not asked");
});

test("a registered environment that throws is recorded and default() moves on", async (t) => {
  process.env.GOOGLE_APPLICATION_CREDENTIALS = adcFile;
  process.env.CRED_AUTH_DEBUG = "1";
  const remove = credAuth.registerHostedEnvironment({
    name: "acme",
    detect: () => true,
    credentials: async () => {
      throw new TypeError("acme module missing");
    },
  });
  t.after(remove);
  const { value, text } = await stderrOf(() => credAuth.default(SCOPES));
  assert.equal(await accountOf(value[0]), "bob@example.com");
  assert.match(text, /acme: TypeError: acme module missing/);
});

test("Kaggle failing, no ADC: default() falls back to the user sign-in", async () => {
  inKaggle();
  kaggle.mode = "unsuccessful";
  process.env.CRED_AUTH_DEBUG = "1";
  const options = signInAs("allow");
  const { value, text } = await stderrOf(() => credAuth.default(SCOPES, options));
  const [credentials, projectId] = value;
  assert.equal(await accountOf(credentials), "carol@example.com", "the signed-in user");
  assert.equal(projectId, null);
  assert.ok(options.browser(), "a sign-in happened");
  assert.match(text, /kaggle.*could not give a Cloud Storage token/);
});

test("when every step fails, the final CredCredentialsError lists each step's reason", async () => {
  inKaggle();
  kaggle.mode = "unauthorized";
  inColab(); // two platforms detected: both are asked and both reported
  // A user sign-in that cannot start (no notebook kernel for the notebook face) is a step's reason;
  // one that ran and was denied would be thrown as its own error (test/credentials/default.test.ts).
  await assert.rejects(credAuth.default(SCOPES, { ...signInAs("deny"), presenter: "notebook" }), (error: Error) => {
    assert.ok(error instanceof credAuth.CredCredentialsError, String(error));
    const lines = error.message.split("\n");
    assert.equal(lines[0], "Could not get any valid credentials.");
    const colab = lines.findIndex((l) => /^- hosted colab: Colab: .*HTTP 404/.test(l));
    const kaggleLine = lines.findIndex((l) => /^- hosted kaggle: Kaggle: .*HTTP 401/.test(l));
    const adc = lines.findIndex((l) => /^- ADC: /.test(l));
    const user = lines.findIndex((l) => /^- user sign-in: .*needs a tslab or Deno Jupyter kernel/.test(l));
    assert.ok(colab > 0 && kaggleLine > colab && adc > kaggleLine && user > adc, error.message);
    assert.doesNotMatch(error.message, /kaggle-secrets/, "no platform secret in the message");
    return true;
  });
});
