// `cred-auth login FILE` over a file that is there: a key, a federation or client-secret file, or
// anything else that is not user credentials is refused with one coded line before any URL or
// browser, its bytes left as they were; earlier user credentials are replaced as before; --force
// replaces anything. Each sign-in says "Signed in as X" once.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { approveSignIn, DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { freePortRange, rangeEnv } from "../oauth/support.ts";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { collect, runCli, sandbox, serviceAccountFile, startCli, waitForStderr, type Sandbox } from "./support.ts";

const emu = await withEmulator();

async function loginBox(): Promise<Sandbox> {
  return sandbox(emu, {
    CRED_AUTH_LOOPBACK_PORTS: rangeEnv(await freePortRange(10)),
    METADATA_SERVER_DETECTION: "none",
  });
}

/** `cred-auth login ...args`, signed in as bob at the URL it prints. */
async function signIn(box: Sandbox, args: string[]) {
  const child = startCli(["login", ...args, "--use_local_webserver"], box.env);
  const done = collect(child, 120_000);
  const [, url] = await waitForStderr(child, /authorize this application: (\S+)/);
  assert.equal((await approveSignIn(url!, { account: "bob@example.com" })).error, undefined);
  return done;
}

test("login over a file that is not user credentials: one coded line naming it, before any URL; its bytes unchanged", async () => {
  const box = await loginBox();
  const write = (name: string, text: string) => {
    const path = join(box.dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  const cases: Array<[string, string]> = [
    [serviceAccountFile(emu, box, "key.json").path, "a service account key \\(service_account\\)"],
    [
      write(
        "federation.json",
        JSON.stringify({ type: "external_account", audience: DEFAULT_WORKLOAD_AUDIENCE, credential_source: {} }),
      ),
      "identity federation credentials \\(external_account\\)",
    ],
    [
      write("workforce.json", JSON.stringify({ type: "external_account_authorized_user", refresh_token: "x" })),
      "a workforce identity federation sign-in \\(external_account_authorized_user\\)",
    ],
    [
      write(
        "client_secret.json",
        JSON.stringify({ installed: { client_id: "1234.apps.googleusercontent.com", client_secret: "GOCSPX-abc" } }),
      ),
      "an OAuth client-secret file",
    ],
    [write("notes.txt", "my notes\n"), "a file that is not JSON, so not credentials"],
    [write("other.json", '{"hello": "world"}'), "JSON that is not credentials"],
  ];
  for (const [path, what] of cases) {
    const bytes = readFileSync(path);
    const r = await runCli(["login", path, "--no-browser"], box.env);
    assert.equal(r.code, 1, `${path}: ${r.stderr}`);
    assert.match(
      r.stderr,
      new RegExp(
        `^cred-auth: Cannot save credentials to ".*": it holds ${what}, which the sign-in would replace; give another path, or --force to replace it\\. \\(ERR_DESTINATION_TAKEN\\)\\n$`,
      ),
    );
    assert.equal(r.notice, undefined, "refused before the emulator notice, any URL or browser");
    assert.deepEqual(readFileSync(path), bytes, `${path} is unchanged`);
  }
});

test("login over earlier user credentials or an empty file replaces them; --force replaces a key; one 'Signed in as' each", async () => {
  const box = await loginBox();
  const earlier = await testCredentialsFile(emu, box.dir, { scopes: ["openid"], filename: "earlier.json" });
  const empty = join(box.dir, "empty.json");
  writeFileSync(empty, "");
  const { path: key } = serviceAccountFile(emu, box, "key.json");
  for (const [path, extra] of [
    [earlier, []],
    [empty, []],
    [key, ["--force"]],
  ] as const) {
    const r = await signIn(box, [path, ...extra]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr.match(/Signed in as/g)?.length, 1, `one "Signed in as":\n${r.stderr}`);
    assert.match(r.stderr, /Signed in as bob@example\.com\./);
    assert.equal((JSON.parse(readFileSync(path, "utf8")) as { type: string }).type, "authorized_user");
  }
});
