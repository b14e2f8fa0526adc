// The warm path loads google-auth-library's UserRefreshClient and gcp-metadata's residency check
// from their own modules, not the package's index (bench/README.md, target 4). Each check runs in
// a fresh process, so what this process already loaded cannot hide a load.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

const lazy = new URL("../../dist/util/lazy.js", import.meta.url).pathname;

function inFreshProcess(body: string): unknown {
  const script = `const lazy = require(${JSON.stringify(lazy)}); (async () => { ${body} })().then((r) => process.stdout.write(JSON.stringify(r)), (e) => { console.error(e); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

const indexLoaded = `Object.keys(require.cache).some((f) => /google-auth-library[\\\\/]build[\\\\/]src[\\\\/]index\\.js$/.test(f))`;

test("loadUserRefreshClient() is google-auth-library's own class, without loading the package's index", () => {
  const result = inFreshProcess(`
    const Client = await lazy.loadUserRefreshClient();
    const before = ${indexLoaded};
    const same = Client === require("google-auth-library").UserRefreshClient;
    return { before, same, name: Client.name };
  `);
  assert.deepEqual(result, { before: false, same: true, name: "UserRefreshClient" });
});

test("isOnGoogleCloud() agrees with google-auth-library's own check, without loading the package's index", () => {
  const result = inFreshProcess(`
    const ours = await lazy.isOnGoogleCloud();
    const before = ${indexLoaded};
    const theirs = await require("google-auth-library").gcpMetadata.getGCPResidency();
    return { before, same: ours === theirs };
  `);
  assert.deepEqual(result, { before: false, same: true });
});

test("isOnGoogleCloud() sees a serverless runtime's variable, as google-auth-library does", () => {
  const result = inFreshProcess(`process.env.K_SERVICE = "svc"; return await lazy.isOnGoogleCloud();`);
  assert.equal(result, true);
});
