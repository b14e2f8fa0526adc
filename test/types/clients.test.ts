// cred-auth's credentials must type-check as the `authClient` / `auth` of @google-cloud/bigquery,
// @google-cloud/storage and googleapis with no casts. Runs its own strict tsc over
// test/types/fixtures (googleapis' types are too heavy for test/tsconfig.json) and the examples.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("../../", import.meta.url));

test("credentials type-check as authClient of BigQuery, Storage and googleapis (strict tsc)", () => {
  const tsc = require.resolve("typescript/bin/tsc");
  const run = spawnSync(
    process.execPath,
    [tsc, "-p", "test/types/fixtures/tsconfig.json", "--strict", "--pretty", "false"],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
  assert.equal(run.stdout + run.stderr, "", "tsc reported errors");
  assert.equal(run.status, 0);
});
