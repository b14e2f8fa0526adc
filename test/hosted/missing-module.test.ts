// A missing peer dependency (google-auth-library) is one more reason to move on, in words.
import assert from "node:assert/strict";
import { registerHooks } from "node:module";
import { test } from "node:test";
import { isolateHome } from "./support.ts";

// Makes google-auth-library unresolvable for this process (require and import alike), as in a
// project that never installed it.
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "google-auth-library") {
      throw Object.assign(new Error("Cannot find package 'google-auth-library'"), { code: "ERR_MODULE_NOT_FOUND" });
    }
    return next(specifier, context);
  },
});

isolateHome();
const { CredCredentialsError } = await import("cred-auth");
const { tryHosted } = await import("../../dist/hosted/registry.js");

test("without google-auth-library, a detected platform reports how to install it", async () => {
  const { result, attempts } = await tryHosted(["https://www.googleapis.com/auth/cloud-platform"], true, {
    VERTEX_PRODUCT: "WORKBENCH_INSTANCE",
    GCE_METADATA_HOST: "127.0.0.1:9",
  });
  assert.equal(result, undefined);
  assert.equal(attempts[0]?.name, "vertex-workbench");
  const error = attempts[0]!.error;
  assert.ok(error instanceof CredCredentialsError, String(error));
  assert.equal(
    error.message,
    "Vertex AI Workbench: the module google-auth-library could not be loaded; install it (npm install google-auth-library).",
  );
  assert.equal((error.cause as { code?: string }).code, "ERR_MODULE_NOT_FOUND");
});
