import assert from "node:assert/strict";
import { test } from "node:test";
import { page } from "../../dist/oauth/pages.js";

/** The words a person sees: the body's text, without the tags (the <title> is the tab's). */
const visible = (html: string) =>
  html
    .replace(/^[\s\S]*<body>/, "")
    .replace(/<[^>]+>/g, " ")
    .trim();

test('the landing page says "Signed in" once', () => {
  const html = page("Signed in", "Signed in. You may close this window.");
  assert.equal(visible(html).match(/Signed in/g)?.length, 1, visible(html));
  assert.match(html, /<title>Signed in<\/title>/);
});

test("a title that the text does not repeat stays as the heading", () => {
  const html = page("Sign-in failed", "Access was denied. You may close this window and run the sign-in again.");
  assert.match(html, /<h1>Sign-in failed<\/h1><p>Access was denied\./);
});

test("the page takes the browser's light or dark colours; everything is escaped", () => {
  const html = page("<b>", "<script>x</script>");
  assert.match(html, /color-scheme:light dark/);
  assert.doesNotMatch(html, /color:#/, "no fixed text colour");
  assert.doesNotMatch(html, /<b>|<script>/);
});
