// `cred-auth emulator` through the CLI: it serves, prints the environment to use, and stops on Ctrl+C.
import { test } from "node:test";
import assert from "node:assert/strict";
import { collect, sandbox, startCli } from "./support.ts";

test("cred-auth emulator --port 0: prints CRED_AUTH_EMULATOR_HOST, serves, exits 0 on SIGINT", {
  skip: process.platform === "win32",
}, async () => {
  const { env } = sandbox();
  const child = startCli(["emulator", "--port", "0", "--quiet"], env);
  const done = collect(child, 60_000);
  const host = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer | string) => {
      seen += chunk.toString();
      const match = /export CRED_AUTH_EMULATOR_HOST=(127\.0\.0\.1:\d+)\n/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.once("exit", () => reject(new Error(`the emulator exited early: ${seen}`)));
  });
  try {
    const reply = await fetch(`http://${host}/storage/v1/b/demo-bucket/o/hello.txt?alt=media`);
    assert.equal(reply.status, 401, "it serves the storage API, which wants a bearer token");
  } finally {
    child.kill("SIGINT");
  }
  const r = await done;
  assert.equal(r.code, 0, r.stderr);
});

test("cred-auth emulator --no-code-page: a Desktop-only emulator, the code page answers 404", {
  skip: process.platform === "win32",
}, async () => {
  const { env } = sandbox();
  const child = startCli(["emulator", "--port", "0", "--quiet", "--no-code-page"], env);
  const done = collect(child, 60_000);
  const host = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer | string) => {
      seen += chunk.toString();
      const match = /export CRED_AUTH_EMULATOR_HOST=(127\.0\.0\.1:\d+)\n/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.once("exit", () => reject(new Error(`the emulator exited early: ${seen}`)));
  });
  try {
    assert.equal((await fetch(`http://${host}/oauth/code?code=4/x`)).status, 404);
    const admin = (await (await fetch(`http://${host}/__emulator`)).json()) as { codePage: boolean };
    assert.equal(admin.codePage, false);
  } finally {
    child.kill("SIGINT");
  }
  const r = await done;
  assert.equal(r.code, 0, r.stderr);
});
