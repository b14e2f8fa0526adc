// The API reference (TypeDoc, typedoc.json) must build with no warnings: every export documented,
// every {@link} resolvable. `npm run docs` writes it to docs/api; here it goes to a temp dir.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("../../", import.meta.url));

test("the TypeDoc API reference builds with warnings as errors", (t) => {
  const out = mkdtempSync(join(tmpdir(), "cred-auth-typedoc-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const typedoc = join(require.resolve("typedoc/package.json"), "..", "bin", "typedoc");
  const run = spawnSync(process.execPath, [typedoc, "--out", out, "--logLevel", "Warn"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  assert.equal(run.status, 0, `typedoc failed:\n${run.stdout}${run.stderr}`);
  assert.ok(existsSync(join(out, "index.html")));
  const index = readFileSync(join(out, "index.html"), "utf8");
  for (const name of ["getUserCredentials", "loadServiceAccountCredentials", "CredCredentialsError", "cache"]) {
    assert.match(index, new RegExp(`>${name}<`), `${name} missing from the API index`);
  }
});

test("typedoc.json fails the build on undocumented exports and broken links", () => {
  const config = JSON.parse(readFileSync(join(root, "typedoc.json"), "utf8"));
  assert.equal(config.treatWarningsAsErrors, true);
  assert.equal(config.validation.notDocumented, true);
  assert.equal(config.validation.invalidLink, true);
  // src/api.ts declares the public API (src/index.ts is its lazy runtime face).
  assert.deepEqual(config.entryPoints, ["src/api.ts"]);
});
