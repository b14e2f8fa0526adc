// google-auth-library (the version cred-auth depends on) against the emulator: GoogleAuth's client
// and an access token, as a separate Node process, for every ADC type it supports, through the
// loopback Google proxy.
import assert from "node:assert/strict";
import { definePeerTests, tools } from "./define.ts";

definePeerTests("google-auth-library", "google-auth-library", (run) => {
  assert.match(run.version ?? "", /^\d+\.\d+\.\d+/);
  assert.ok(tools.openssl);
});
