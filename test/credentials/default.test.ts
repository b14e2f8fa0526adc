// default(): hosted -> ADC (file, gcloud file, metadata server) -> user sign-in -> one error with every reason.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { CredCredentialsError, cache } from "cred-auth";
import type { HostedEnvironment } from "cred-auth";
import { testCredentialsFile } from "../support/emulator.ts";
import { browserPresenter, isolatedWorld, withEnv } from "../credentials/support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
const userOptions = { credentialsCache: cache.NOOP, useLocalWebserver: true } as const;

async function tokenOf(credentials: { getAccessToken(): Promise<{ token?: string | null }> }): Promise<string> {
  const { token } = await credentials.getAccessToken();
  assert.ok(token);
  return token;
}

test("GOOGLE_APPLICATION_CREDENTIALS with a user file: those credentials, project null, no sign-in", async () => {
  const path = await testCredentialsFile(emulator, join(home, "adc-user"), {
    scopes: [CLOUD],
    account: "carol@example.com",
  });
  const b = browserPresenter();
  const [credentials, projectId] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    credAuth.default([CLOUD], { ...userOptions, presenter: b.presenter }),
  );
  assert.equal(projectId, null);
  assert.equal(credentials.constructor.name, "UserRefreshClient");
  assert.equal(emulator.checkAccessToken(await tokenOf(credentials))?.account, "carol@example.com");
  assert.deepEqual(b.types(), []);
});

test("GOOGLE_APPLICATION_CREDENTIALS with a service-account key: its project id", async () => {
  const key = emulator.createServiceAccountKey({ projectId: "sa-project" });
  const path = join(home, "sa.json");
  writeFileSync(path, JSON.stringify(key), { mode: 0o600 });
  const [credentials, projectId] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path }, () =>
    credAuth.default([CLOUD], userOptions),
  );
  assert.equal(projectId, "sa-project");
  assert.equal(emulator.checkAccessToken(await tokenOf(credentials))?.account, key.client_email);
});

test("gcloud's well-known ADC file ($CLOUDSDK_CONFIG, then ~/.config/gcloud) when the variable is unset", async () => {
  const gcloudDir = join(home, "gcloud-config");
  await testCredentialsFile(emulator, gcloudDir, {
    scopes: [CLOUD],
    account: "bob@example.com",
    filename: "application_default_credentials.json",
  });
  const [viaConfig] = await withEnv({ CLOUDSDK_CONFIG: gcloudDir }, () => credAuth.default([CLOUD], userOptions));
  assert.equal(emulator.checkAccessToken(await tokenOf(viaConfig))?.account, "bob@example.com");

  const homeGcloud = join(home, ".config", "gcloud");
  await testCredentialsFile(emulator, homeGcloud, {
    scopes: [CLOUD],
    account: "alice@example.com",
    filename: "application_default_credentials.json",
  });
  const [viaHome, projectId] = await credAuth.default([CLOUD], userOptions);
  assert.equal(projectId, null);
  assert.equal(emulator.checkAccessToken(await tokenOf(viaHome))?.account, "alice@example.com");
  const { rmSync } = await import("node:fs");
  rmSync(homeGcloud, { recursive: true });
});

test("the metadata server named by GCE_METADATA_HOST: Compute credentials and the server's project", async () => {
  emulator.setMetadata({ projectId: "meta-project", email: "vm-sa@meta-project.iam.gserviceaccount.com" });
  try {
    const before = emulator.stats().metadataTokenRequests;
    const [credentials, projectId] = await withEnv({ GCE_METADATA_HOST: emulator.host }, () =>
      credAuth.default([CLOUD], userOptions),
    );
    assert.equal(projectId, "meta-project");
    assert.ok(credentials instanceof (await import("google-auth-library")).Compute, "Compute credentials");
    await tokenOf(credentials);
    assert.ok(emulator.stats().metadataTokenRequests > before);
  } finally {
    emulator.setMetadata(null);
  }
});

test("no ADC anywhere: falls back to the user sign-in with the same options, project null", async () => {
  const b = browserPresenter({ account: "bob@example.com" });
  const [credentials, projectId] = await credAuth.default([CLOUD, "email"], { ...userOptions, presenter: b.presenter });
  assert.equal(projectId, null);
  assert.deepEqual(b.types(), ["url", "waiting", "signed-in"]);
  assert.equal(emulator.checkAccessToken(await tokenOf(credentials))?.account, "bob@example.com");
});

test("a hosted environment comes first; one that fails is passed over to ADC", async () => {
  const path = await testCredentialsFile(emulator, join(home, "adc-hosted"), { scopes: [CLOUD] });
  const failing: HostedEnvironment = {
    name: "broken-platform",
    detect: () => true,
    credentials: async () => {
      throw new Error("platform exploded");
    },
  };
  const [fromAdc] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path, CRED_AUTH_HOSTED: undefined }, () =>
    credAuth.default([CLOUD], { ...userOptions, hosted: [failing] }),
  );
  await tokenOf(fromAdc);

  const { UserRefreshClient } = await import("google-auth-library");
  const given = new UserRefreshClient();
  const working: HostedEnvironment = {
    name: "good-platform",
    detect: () => true,
    credentials: async () => ({ credentials: given, projectId: "hosted-project" }),
  };
  const [hosted, projectId] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: path, CRED_AUTH_HOSTED: undefined }, () =>
    credAuth.default([CLOUD], { ...userOptions, hosted: [working] }),
  );
  assert.equal(hosted, given);
  assert.equal(projectId, "hosted-project");
});

test("a sign-in that ran and was denied: default() throws the sign-in's own error, which its face showed", async () => {
  const b = browserPresenter({ decision: "deny" });
  await withEnv(
    { GOOGLE_APPLICATION_CREDENTIALS: join(home, "nothing-here.json"), CRED_AUTH_HOSTED: "off" },
    async () => {
      await assert.rejects(credAuth.default([CLOUD], { ...userOptions, presenter: b.presenter }), (error: Error) => {
        assert.ok(error instanceof CredCredentialsError);
        assert.equal(error.code, "ERR_ACCESS_DENIED");
        assert.match(
          error.message,
          /^The sign-in was denied in the browser \(access_denied\): sign in again and choose Allow/,
        );
        return true;
      });
    },
  );
  assert.deepEqual(b.types().at(-1), "failed", "the face said it");
});

test("everything fails: 'Could not get any valid credentials.' with each step's reason and no secret", async () => {
  const failing: HostedEnvironment = {
    name: "broken-platform",
    detect: () => true,
    credentials: async () => Promise.reject(new Error("no user here")),
  };
  const missing = join(home, "does-not-exist.json");
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on("warning", onWarning);
  try {
    await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: missing, CRED_AUTH_HOSTED: undefined }, async () => {
      await assert.rejects(
        // The sign-in cannot even start here (no notebook kernel for the notebook face).
        credAuth.default([CLOUD], { ...userOptions, presenter: "notebook", hosted: [failing] }),
        (error: Error) => {
          assert.ok(error instanceof CredCredentialsError);
          const lines = error.message.split("\n");
          assert.equal(lines[0], "Could not get any valid credentials.");
          assert.ok(
            lines.some((l) => l.includes("hosted broken-platform") && l.includes("no user here")),
            error.message,
          );
          assert.ok(
            lines.some((l) => l.includes("ADC") && l.includes(missing) && l.includes("does not exist")),
            error.message,
          );
          assert.ok(
            lines.some((l) => l.includes("user sign-in") && l.includes("needs a tslab or Deno Jupyter kernel")),
            error.message,
          );
          assert.equal((error as CredCredentialsError).code, "ERR_NO_CREDENTIALS");
          assert.doesNotMatch(error.message, /cred-auth-demo-secret|secret-emulator-only/);
          return true;
        },
      );
    });
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  assert.ok(
    warnings.some((w) => (w as { code?: string }).code === "CRED_AUTH_ADC" && w.message.includes(missing)),
    "a bad GOOGLE_APPLICATION_CREDENTIALS is reported",
  );
});

test("a broken ADC file falls back to the user sign-in (not to gcloud's file)", async () => {
  const broken = join(home, "broken.json");
  writeFileSync(broken, '{"type": "authorized_user", "client_id": "x"');
  mkdirSync(join(home, ".config", "gcloud"), { recursive: true });
  await testCredentialsFile(emulator, join(home, ".config", "gcloud"), {
    scopes: [CLOUD],
    filename: "application_default_credentials.json",
  });
  const b = browserPresenter();
  process.on("warning", () => {});
  const [credentials] = await withEnv({ GOOGLE_APPLICATION_CREDENTIALS: broken }, () =>
    credAuth.default([CLOUD], { ...userOptions, presenter: b.presenter }),
  );
  assert.deepEqual(b.types(), ["url", "waiting", "signed-in"]);
  await tokenOf(credentials);
});

test("default is the module's default export and a named export", async () => {
  assert.equal(credAuth.default, credAuth.defaultCredentials);
  assert.equal(typeof credAuth.default, "function");
});
