// ADC's last step, the metadata server, against the emulator as Google's servers behave: on a
// Compute Engine VM the token carries the VM's access scopes whatever is asked, so credentials whose
// scopes lack a requested one are passed over with the VM's scopes and what to change (a sign-in
// may grant them); on Cloud Run the requested scopes are honoured; a busy server (408, 429, 5xx) is
// asked again as gcp-metadata does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Compute } from "google-auth-library";
import * as credAuth from "cred-auth";
import { CredConnectionError, ERROR_CODES, cache } from "cred-auth";
import { findApplicationDefaultCredentials } from "../../dist/credentials/search/adc.js";
import { browserPresenter, isolatedWorld, withEnv } from "../credentials/support.ts";

const { emulator } = await isolatedWorld();
const AUTH = "https://www.googleapis.com/auth/";
const CLOUD = `${AUTH}cloud-platform`;
const DRIVE = `${AUTH}drive`;
const BIGQUERY = `${AUTH}bigquery`;
const VM = { projectId: "vm-project", email: "vm-default@vm-project.iam.gserviceaccount.com", scopes: [CLOUD] };
const userOptions = { credentialsCache: cache.NOOP, useLocalWebserver: true } as const;
const envOf = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: process.env.HOME,
  CRED_AUTH_EMULATOR_HOST: emulator.host,
  GCE_METADATA_HOST: emulator.host,
  ...extra,
});

async function scopesOf(credentials: { getAccessToken(): Promise<{ token?: string | null }> }) {
  const { token } = await credentials.getAccessToken();
  return emulator.checkAccessToken(token ?? "")?.scopes;
}

test("Compute Engine: a VM with cloud-platform serves Google Cloud scopes (BigQuery), its token with the VM's scopes", async () => {
  emulator.setMetadata(VM);
  emulator.setMetadataPlatform("compute-engine");
  const outcome = await findApplicationDefaultCredentials([BIGQUERY, CLOUD], envOf());
  assert.ok(outcome.found, outcome.reasons.join("\n"));
  assert.ok(outcome.found.credentials instanceof Compute);
  assert.deepEqual(await scopesOf(outcome.found.credentials), [CLOUD], "a VM ignores ?scopes=");
});

test("Compute Engine: a requested scope beyond the VM's (Drive) is refused with the VM's scopes and what to change", async () => {
  emulator.setMetadata(VM);
  emulator.setMetadataPlatform("compute-engine");
  const outcome = await findApplicationDefaultCredentials([CLOUD, DRIVE], envOf());
  assert.equal(outcome.found, undefined, "not handed out without Drive");
  const reason = outcome.reasons.at(-1) ?? "";
  assert.equal(
    reason,
    `the metadata server's token lacks ${DRIVE}: this VM's service account has the access scopes ${CLOUD}, and a VM's token carries those whatever is asked; stop the VM, give it these scopes (gcloud compute instances set-service-account VM --zone ZONE --service-account SA --scopes SCOPES) and start it again; or ask for fewer scopes.`,
  );
  // The VM given Drive too: the same request is served.
  emulator.setMetadata({ ...VM, scopes: [CLOUD, DRIVE] });
  const given = await findApplicationDefaultCredentials([CLOUD, DRIVE], envOf());
  assert.ok(given.found);
  assert.deepEqual(await scopesOf(given.found.credentials), [CLOUD, DRIVE]);
});

test("default() on a VM without Drive goes on to a sign-in that grants it; failing that, says why", async () => {
  emulator.setMetadata(VM);
  emulator.setMetadataPlatform("compute-engine");
  const b = browserPresenter({ account: "alice@example.com" });
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  const [credentials, projectId] = await withEnv({ GCE_METADATA_HOST: emulator.host }, () =>
    credAuth.default([DRIVE], { ...userOptions, presenter: b.presenter }),
  );
  await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  process.off("warning", onWarning);
  assert.ok(
    warnings.some(
      (w) =>
        (w as { code?: string }).code === "CRED_AUTH_ADC" &&
        w.message.startsWith(
          `ADC: the metadata server's token lacks ${DRIVE}: this VM's service account has the access scopes ${CLOUD}`,
        ) &&
        w.message.endsWith("Falling back to user sign-in."),
    ),
    "the user hears why a sign-in follows",
  );
  assert.deepEqual(b.types(), ["url", "waiting", "signed-in"]);
  assert.equal(projectId, null);
  assert.ok((await scopesOf(credentials))?.includes(DRIVE));
  // Failing that: the sign-in's face said how it ended and default() throws its own error (one
  // line, issue 26); why the VM's token was passed over was said before, as a warning.
  const denied = browserPresenter({ decision: "deny" });
  const deniedWarnings: Error[] = [];
  const onDeniedWarning = (warning: Error) => deniedWarnings.push(warning);
  process.on("warning", onDeniedWarning);
  await assert.rejects(
    withEnv({ GCE_METADATA_HOST: emulator.host }, () =>
      credAuth.default([DRIVE], { ...userOptions, presenter: denied.presenter }),
    ),
    (error: unknown) => {
      assert.equal((error as { code?: string }).code, ERROR_CODES.ACCESS_DENIED);
      return true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  process.off("warning", onDeniedWarning);
  assert.ok(
    deniedWarnings.some(
      (w) =>
        (w as { code?: string }).code === "CRED_AUTH_ADC" &&
        w.message.includes(`this VM's service account has the access scopes ${CLOUD}`),
    ),
    "why the VM was passed over is said before the denied sign-in too",
  );
  emulator.setMetadata(null);
});

test("Cloud Run (K_SERVICE), a GKE pod (KUBERNETES_SERVICE_HOST): the metadata server may honour ?scopes=, not judged", async () => {
  emulator.setMetadata(VM);
  emulator.setMetadataPlatform("cloud-run");
  try {
    for (const where of [{ K_SERVICE: "api" }, { KUBERNETES_SERVICE_HOST: "10.0.0.1" }]) {
      const outcome = await findApplicationDefaultCredentials([CLOUD, DRIVE], envOf(where));
      assert.ok(outcome.found, outcome.reasons.join("\n"));
      assert.deepEqual(await scopesOf(outcome.found.credentials), [CLOUD, DRIVE]);
    }
  } finally {
    emulator.setMetadataPlatform("compute-engine");
  }
});

test("a metadata server answering 503 or 429 is asked again, 3 times, as gcp-metadata does; then a CredConnectionError", async () => {
  emulator.setMetadata(VM);
  emulator.reset();
  emulator.failNext(3, { target: "metadata", status: 503 });
  const before = emulator.stats().metadataTokenRequests;
  const started = Date.now();
  const outcome = await findApplicationDefaultCredentials([CLOUD], envOf());
  assert.ok(outcome.found, "three 503s, then a token");
  assert.equal(emulator.stats().metadataTokenRequests, before + 4, "the first request and its 3 retries");
  assert.ok(Date.now() - started >= 2000, "gaxios's backoff: 100 ms, 500 ms, 1.5 s");

  emulator.failNext(2, { target: "metadata", status: 429 });
  assert.ok((await findApplicationDefaultCredentials([CLOUD], envOf())).found, "429 is temporary too");

  emulator.failNext(4, { target: "metadata", status: 503 });
  await assert.rejects(findApplicationDefaultCredentials([CLOUD], envOf()), (error: unknown) => {
    assert.ok(error instanceof CredConnectionError, String(error));
    assert.match(error.message, /HTTP 503/);
    return true;
  });
  emulator.failNext(1, { target: "metadata", status: 404 });
  const final = emulator.stats().metadataTokenRequests;
  await assert.rejects(findApplicationDefaultCredentials([CLOUD], envOf()), CredConnectionError);
  assert.equal(emulator.stats().metadataTokenRequests, final + 1, "404 is final: not asked again");
  emulator.reset();
  emulator.setMetadata(null);
});
