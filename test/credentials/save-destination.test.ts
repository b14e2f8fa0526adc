// saveUserCredentials(scopes, path) over a file that is there: a key is refused before any sign-in
// (no presenter event, the bytes unchanged) with ERR_DESTINATION_TAKEN; `overwrite: true` replaces it.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as credAuth from "cred-auth";
import { ERROR_CODES } from "cred-auth";
import { browserPresenter, isolatedWorld } from "./support.ts";

const { emulator, home } = await isolatedWorld();
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";

test("saveUserCredentials refuses to replace a service account key before any sign-in; overwrite: true replaces it", async () => {
  const path = join(home, "key.json");
  writeFileSync(path, JSON.stringify(emulator.createServiceAccountKey()), { mode: 0o600 });
  const bytes = readFileSync(path);
  const refused = browserPresenter();
  await assert.rejects(
    credAuth.saveUserCredentials([CLOUD], path, { presenter: refused.presenter, useLocalWebserver: true }),
    (error: unknown) => {
      const e = error as { code?: string; message: string };
      assert.equal(e.code, ERROR_CODES.DESTINATION_TAKEN);
      assert.match(e.message, /it holds a service account key \(service_account\).*or the option overwrite: true/);
      return true;
    },
  );
  assert.deepEqual(refused.types(), [], "no sign-in started");
  assert.deepEqual(readFileSync(path), bytes);

  const { presenter } = browserPresenter();
  await credAuth.saveUserCredentials([CLOUD], path, { presenter, useLocalWebserver: true, overwrite: true });
  assert.equal((JSON.parse(readFileSync(path, "utf8")) as { type: string }).type, "authorized_user");
  // Earlier user credentials are replaced without being told.
  await credAuth.saveUserCredentials([CLOUD], path, {
    presenter: browserPresenter().presenter,
    useLocalWebserver: true,
  });
});
