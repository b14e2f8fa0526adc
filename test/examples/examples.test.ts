// Every example in examples/ runs in a child process against the emulator (OAuth) and its fake
// Google APIs, with the real client libraries, and fails when the API rejects its token. They run
// as a user runs them: the JavaScript the packed tarball ships, from the project that installed it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Storage } from "@google-cloud/storage";
import { loadUserCredentials } from "cred-auth";
import { builtinModules } from "node:module";
import { CONSUMER_DEPENDENCIES, CONSUMER_PATH, installedPackage } from "../package/consumer.ts";
import { testCredentialsFile, withEmulator } from "../support/emulator.ts";
import { CLOUD_PLATFORM, exampleEnv, runExample, tempDir } from "./support.ts";
import type { RunResult } from "./support.ts";

const emulator = await withEmulator();
/** Another emulator: its APIs know none of the first one's tokens (a wrong token). */
const stranger = await withEmulator();
const dir = tempDir();
const home = join(dir, "home");
const STORAGE_READ = "https://www.googleapis.com/auth/devstorage.read_only";
const HELLO = "Hello from the cred-auth emulator!\n";

const credentialsFile = await testCredentialsFile(emulator, dir, {
  scopes: [CLOUD_PLATFORM],
  account: "bob@example.com",
});
const keyFile = join(dir, "key.json");
const key = emulator.createServiceAccountKey({ projectId: "sa-project" });
writeFileSync(keyFile, JSON.stringify(key), { mode: 0o600 });
// A cached sign-in, where getUserCredentials() looks first ($HOME/.config/cred/cred_credentials.json).
const cacheDir = join(home, ".config", "cred");
mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
await testCredentialsFile(emulator, cacheDir, {
  scopes: [STORAGE_READ],
  account: "carol@example.com",
  filename: "cred_credentials.json",
});
chmodSync(cacheDir, 0o700);
const secrets = [
  JSON.parse(readFileSync(credentialsFile, "utf8")).refresh_token as string,
  JSON.parse(readFileSync(join(cacheDir, "cred_credentials.json"), "utf8")).refresh_token as string,
  key.private_key ?? "",
];

/** Checks what every run must hold: no secret in the output. */
function noSecrets(run: RunResult): void {
  const output = run.stdout + run.stderr;
  for (const secret of secrets) assert.ok(!output.includes(secret), "a secret appeared in the example's output");
  assert.doesNotMatch(output, /ya29\.emu\./, "an access token appeared in the example's output");
}

function succeeded(run: RunResult): void {
  assert.equal(run.code, 0, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  noSecrets(run);
}

/** The API rejected the token with a 401, and the example said so and exited 1. */
function rejected(run: RunResult, name: string): void {
  assert.equal(run.code, 1, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  assert.match(run.stderr, new RegExp(`${name} failed: .*(invalid authentication credentials|401)`));
  noSecrets(run);
}

const examples: { name: string; args: string[]; env?: Record<string, string>; expect(run: RunResult): void }[] = [
  {
    name: "bigquery-query.ts",
    args: [],
    env: { GOOGLE_APPLICATION_CREDENTIALS: credentialsFile },
    expect: (run) => assert.equal(run.stdout, "answer=17 user=bob@example.com\n"),
  },
  {
    name: "storage-list-download.ts",
    args: ["demo-bucket", "hello.txt"],
    expect: (run) => assert.equal(run.stdout, `gs://demo-bucket/hello.txt (35 bytes)\n${HELLO}`),
  },
  {
    name: "googleapis-call.ts",
    args: [credentialsFile, "demo-bucket"],
    expect: (run) => assert.equal(run.stdout, "hello.txt\t35 bytes\ttext/plain\n"),
  },
  {
    name: "curl-with-print-token.ts",
    args: [credentialsFile, "demo-bucket", "hello.txt"],
    expect: (run) => assert.equal(run.stdout, HELLO),
  },
  {
    name: "service-account.ts",
    args: [keyFile],
    expect: (run) =>
      assert.equal(run.stdout, `service account ${key.client_email} in project sa-project\nuser=${key.client_email}\n`),
  },
];

for (const example of examples) {
  test(`${example.name} works against the emulator`, async () => {
    const run = await runExample(example.name, example.args, exampleEnv(home, emulator, example.env));
    succeeded(run);
    example.expect(run);
  });

  test(`${example.name} fails when the API rejects its token`, async () => {
    const run = await runExample(
      example.name,
      example.args,
      exampleEnv(home, emulator, { ...example.env, EXAMPLE_API_URL: stranger.url }),
    );
    rejected(run, example.name.replace(/\.ts$/, ""));
  });
}

test("@google-cloud/storage sends no token to a custom apiEndpoint without useAuthWithCustomEndpoint", async () => {
  const credentials = await loadUserCredentials(credentialsFile);
  const withoutAuth = new Storage({
    authClient: credentials,
    apiEndpoint: emulator.url,
    retryOptions: { autoRetry: false },
  });
  await assert.rejects(withoutAuth.bucket("demo-bucket").getFiles(), /missing required authentication credential/);
  const withAuth = new Storage({ authClient: credentials, apiEndpoint: emulator.url, useAuthWithCustomEndpoint: true });
  const [files] = await withAuth.bucket("demo-bucket").getFiles();
  assert.deepEqual(
    files.map((f) => f.name),
    ["hello.txt"],
  );
});

test("every example is listed in examples/README.md and run by a test", () => {
  const examplesDir = new URL("../../examples/", import.meta.url);
  const readme = readFileSync(new URL("README.md", examplesDir), "utf8");
  const serial = readFileSync(new URL("./sign-in.serial.test.ts", import.meta.url), "utf8");
  const files = readdirSync(examplesDir).filter((f) => f.endsWith(".ts"));
  assert.ok(files.length >= 6);
  for (const name of files) {
    assert.ok(readme.includes(`(./${name})`), `${name} missing from examples/README.md`);
    assert.ok(examples.some((e) => e.name === name) || serial.includes(`"${name}"`), `${name} is not run by a test`);
  }
});

test("the package ships each example as JavaScript beside its TypeScript; examples/README.md installs what they import", async () => {
  const examplesDir = new URL("../../examples/", import.meta.url);
  const names = readdirSync(examplesDir).filter((f) => f.endsWith(".ts"));
  const { files } = await installedPackage();
  for (const name of names) {
    assert.ok(files.includes(`examples/${name}`), `the package lacks examples/${name}`);
    assert.ok(
      files.includes(`examples/${name.replace(/\.ts$/, ".js")}`),
      `the package lacks the JavaScript of ${name}`,
    );
  }
  const imported = new Set(
    names.flatMap((name) =>
      [...readFileSync(new URL(name, examplesDir), "utf8").matchAll(/^import .* from "([^"]+)";$/gm)].map(
        (m) => m[1] ?? "",
      ),
    ),
  );
  const packages = [...imported].filter(
    (p) => !p.startsWith("node:") && !builtinModules.includes(p) && p !== "cred-auth",
  );
  const install = /^npm install (.*)$/m.exec(readFileSync(new URL("README.md", examplesDir), "utf8"))?.[1]?.split(" ");
  assert.ok(install, "examples/README.md has no `npm install` line");
  assert.deepEqual(
    packages.filter((p) => !install.includes(p)),
    [],
    "imported by an example, not installed by the README",
  );
  assert.deepEqual(
    packages.filter((p) => !(CONSUMER_DEPENDENCIES as readonly string[]).includes(p)),
    [],
    "not installed by the tests",
  );
});

test("each example's usage line runs as written from the project that installed the package", async () => {
  // `node examples/X.ts` found nothing there (MODULE_NOT_FOUND), and `node node_modules/.../X.ts`
  // is refused (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING): the line names the shipped .js.
  const consumer = await installedPackage();
  const names = readdirSync(join(consumer.packageDir, "examples")).filter((f) => f.endsWith(".ts"));
  for (const name of names) {
    const header = readFileSync(join(consumer.packageDir, "examples", name), "utf8").split("\n\n")[0] ?? "";
    const usage = /^\/\/ .*\bnode (\S+)/m.exec(header)?.[1];
    assert.equal(usage, `node_modules/cred-auth/examples/${name.replace(/\.ts$/, ".js")}`, `${name}'s usage line`);
    if (name === "bigquery-query.ts") continue; // it takes no arguments: run above, as a sign-in or with ADC
    // Without its arguments (or its client), each one says how to run it and exits 2, from the project's folder.
    const run = spawnSync(process.execPath, [usage], {
      cwd: consumer.dir,
      encoding: "utf8",
      env: { PATH: CONSUMER_PATH },
    });
    assert.equal(run.status, 2, `${name}: exit ${run.status}\n${run.stderr}`);
    assert.match(run.stderr, /^(usage: node node_modules\/cred-auth\/examples\/\S+\.js|Set ACME_CLIENT_ID)/, name);
  }
});
