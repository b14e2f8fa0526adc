// Python google-auth against the emulator: google.auth.default() and a refresh, with gcloud's bundled
// google-auth (2.39 in gcloud 528) for every ADC type it supports, and with Debian's python3-google-auth
// (1.5.1: authorized_user and service_account, whose JWT assertions keep their base64 padding).
import assert from "node:assert/strict";
import { definePeerTests, tools } from "./define.ts";

definePeerTests("python", `Python google-auth ${tools.bundledPython?.googleAuth ?? "(gcloud's)"}`, (run, _rig, adc) => {
  assert.equal(run.credentials, adc.pythonClass);
  assert.equal(run.version, tools.bundledPython?.googleAuth);
});

definePeerTests(
  "debian-python",
  `Python google-auth ${tools.debianPython?.googleAuth ?? "(Debian's)"}`,
  (run, rig, adc) => {
    assert.equal(run.credentials, adc.pythonClass);
    if (adc.name !== "service_account") return;
    const grant = rig
      .proxy()
      .forwarded.map((r) => new URLSearchParams(r.body))
      .findLast((form) => form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer");
    assert.match(
      grant?.get("assertion") ?? "",
      /=\.|=$/,
      "google-auth before 1.6.3 pads the assertion's parts, and it was accepted",
    );
  },
);
