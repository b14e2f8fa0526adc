// The sign-in decision (oauth/decide.ts): the caller's options win, else where the code runs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import { decideSignIn } from "../../dist/oauth/decide.js";

const local = { runtime: { remote: false, canOpenBrowser: true }, codePageAvailable: true };
const remote = { runtime: { remote: true, canOpenBrowser: false }, codePageAvailable: true };
const remoteWithoutCodePage = { ...remote, codePageAvailable: false };

test("remote picks copy-paste when a code page exists, local picks loopback", () => {
  assert.equal(decideSignIn({}, local).mode, "loopback");
  assert.equal(decideSignIn({}, remote).mode, "paste");
  assert.equal(decideSignIn({}, remoteWithoutCodePage).mode, "loopback", "no page to show the code: loopback");
});

test("the browser is launched when the runtime expects one to work, unless the caller says", () => {
  assert.equal(decideSignIn({}, local).openBrowser, true);
  assert.equal(decideSignIn({}, remote).openBrowser, false);
  assert.equal(decideSignIn({ openBrowser: false }, local).openBrowser, false);
  assert.equal(decideSignIn({ openBrowser: true }, remote).openBrowser, true);
});

test("the caller's flow wins: useLocalWebserver, its deprecated alias, a redirectUri", () => {
  assert.equal(decideSignIn({ useLocalWebserver: true }, remote).mode, "loopback");
  assert.equal(decideSignIn({ authLocalWebserver: true }, remote).mode, "loopback");
  assert.equal(decideSignIn({ useLocalWebserver: false }, local).mode, "paste");
  assert.equal(decideSignIn({ redirectUri: "https://example.org/code" }, local).mode, "paste");
  assert.equal(decideSignIn({ redirectUri: "http://localhost:9004/" }, remote).mode, "loopback");
});

test("a loopback flow to a page that is not on loopback is refused", () => {
  assert.throws(() => decideSignIn({ useLocalWebserver: true, redirectUri: "https://example.org/code" }, local), {
    code: ERROR_CODES.INVALID_OPTION,
  });
});
