import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));

test("ESM and CommonJS faces are the same module instance", async () => {
  const esm = await import("cred-auth");
  const cjs = require("cred-auth");
  assert.equal(esm.CredCredentialsError, cjs.CredCredentialsError);
  assert.equal(esm.default, cjs.default);
  assert.equal(typeof esm.default, "function");
});

test("__version__ and VERSION equal package.json's version", async () => {
  const mod = await import("cred-auth");
  assert.equal(mod.__version__, pkg.version);
  assert.equal(mod.VERSION, pkg.version);
});

test("errors share a base class, carry a name and a cause", async () => {
  const { exceptions, CredCredentialsError, CredConnectionError } = await import("cred-auth");
  const cause = new Error("inner");
  const e = new CredCredentialsError("bad file", { cause });
  assert.ok(e instanceof exceptions.CredAuthError);
  assert.ok(new CredConnectionError("x") instanceof exceptions.CredAuthError);
  assert.equal(e.name, "CredCredentialsError");
  assert.equal(e.cause, cause);
  assert.equal(exceptions.CredCredentialsError, CredCredentialsError);
});
