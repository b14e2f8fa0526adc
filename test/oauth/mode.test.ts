// The caller's say on the flow is read in one place (oauth/mode.ts): useLocalWebserver, or its
// deprecated alias; credentials/user.ts decides the rest once and hands the flow its mode.
import assert from "node:assert/strict";
import { test } from "node:test";
import { callerUseLocalWebserver, signInMode, useLocalWebserver } from "../../dist/oauth/mode.js";

test("callerUseLocalWebserver: the option, else its deprecated alias, else no choice", () => {
  assert.equal(callerUseLocalWebserver({}), undefined);
  assert.equal(callerUseLocalWebserver({ useLocalWebserver: false }), false);
  assert.equal(callerUseLocalWebserver({ authLocalWebserver: false }), false);
  assert.equal(callerUseLocalWebserver({ useLocalWebserver: true, authLocalWebserver: false }), true);
  assert.equal(useLocalWebserver({}), true, "SPEC 4.1: the loopback flow by default");
});

test("signInMode: paste when the caller says so or the redirect is a page elsewhere", () => {
  assert.equal(signInMode({}), "loopback");
  assert.equal(signInMode({ authLocalWebserver: false }), "paste");
  assert.equal(signInMode({ redirectUri: "https://example.com/code" }), "paste");
  assert.equal(signInMode({ redirectUri: "http://localhost:9004/" }), "loopback");
  assert.throws(
    () => signInMode({ useLocalWebserver: true, redirectUri: "https://example.com/code" }),
    (error: { code?: string }) => error.code === "ERR_INVALID_OPTION",
  );
});
