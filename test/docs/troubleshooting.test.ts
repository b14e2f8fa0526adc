// docs/troubleshooting.md quotes cred-auth's error messages: each quoted message (a heading in
// code, or the first cell of a table row) must still be produced somewhere in src/.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const root = fileURLToPath(new URL("../../", import.meta.url));
const source = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts") && !file.startsWith("emulator"))
  .map((file) => readFileSync(join(root, "src", file), "utf8"))
  .join("\n");

/** The message fragments the page quotes. */
function quotedMessages(page: string): string[] {
  const headings = [...page.matchAll(/^### `([^`]+)`\s*$/gm)].map((m) => m[1] ?? "");
  const firstCells = [...page.matchAll(/^\| ((?:`[^`]+`(?:, )?)+) \|/gm)].flatMap((m) =>
    [...(m[1] ?? "").matchAll(/`([^`]+)`/g)].map((c) => c[1] ?? ""),
  );
  return [...headings, ...firstCells];
}

test("every message docs/troubleshooting.md quotes is produced by src/", () => {
  const page = readFileSync(join(root, "docs", "troubleshooting.md"), "utf8");
  const quoted = quotedMessages(page);
  assert.ok(quoted.length > 40, `only ${quoted.length} quoted messages found`);
  const stale = quoted.filter((message) => !source.includes(message));
  assert.deepEqual(stale, [], `messages no longer in src/:\n${stale.join("\n")}`);
});

test("every code of ERROR_CODES is documented in docs/troubleshooting.md's table, and no other", async () => {
  const { ERROR_CODES } = await import("cred-auth");
  const page = readFileSync(join(root, "docs", "troubleshooting.md"), "utf8");
  const documented = [...page.matchAll(/^\| `(ERR_[A-Z_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...documented].sort(), Object.values(ERROR_CODES).sort());
});

test("the message extraction sees headings and table cells", () => {
  assert.deepEqual(quotedMessages("### `A b.`\ntext\n| `c d`, `e` | fix |\n| plain | x |\n"), ["A b.", "c d", "e"]);
});
