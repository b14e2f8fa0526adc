// The keychain is one store behind the SecretStore interface (issue 47 item 4): it is named only in
// its store, its OS adapter, the place where a store is chosen, its error code and its setting.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";

const SRC = new URL("../../src/", import.meta.url).pathname;

test("the keychain is named in five src files: its store, its OS adapter, the choice, its error code, its setting", () => {
  const naming = readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(SRC, join(e.parentPath, e.name)))
    .filter((file) => !file.startsWith("emulator/") && /keychain/i.test(readFileSync(join(SRC, file), "utf8")))
    .sort();
  assert.deepEqual(naming, [
    "errors.ts",
    "os/keychain.ts",
    "settings/keys.ts",
    "stores/index.ts",
    "stores/keychain.ts",
  ]);
});
