// The key kind's client records its file only when it has one (a client built from a caller's JWT has none).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseServiceAccountKey } from "../../dist/credentials/kinds/key/file.js";
import { serviceAccountClientFrom } from "../../dist/credentials/kinds/key/client.js";
import { getCredentialInfo } from "../../dist/protocols/info.js";
import { isolatedWorld } from "./support.ts";

const { emulator } = await isolatedWorld();

test("a key's client built without a file records no path; with one, that path", async () => {
  const file = parseServiceAccountKey(emulator.createServiceAccountKey(), "k.json");
  assert.equal("path" in (getCredentialInfo(await serviceAccountClientFrom(file, undefined, {})) ?? {}), false);
  assert.equal(getCredentialInfo(await serviceAccountClientFrom(file, undefined, { path: "k.json" }))?.path, "k.json");
});
