// The `cred-auth emulator` starter in its own process: output, admin API across processes, clean SIGTERM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { parseEmulatorArgs, startEmulator } from "cred-auth/emulator";
import { runCli, sandbox } from "../cli/support.ts";

test("parseEmulatorArgs: defaults, --port, --flag=value, metadata pair, errors", () => {
  assert.deepEqual(parseEmulatorArgs([]), {
    port: 9099,
    metadata: null,
    metadataPlatform: "compute-engine",
    quiet: false,
    codePage: true,
    serviceAccounts: [],
    runServices: [],
  });
  assert.equal(parseEmulatorArgs(["--no-code-page"]).codePage, false);
  assert.equal(parseEmulatorArgs(["--port", "0"]).port, 0);
  assert.equal(parseEmulatorArgs(["--port=1234"]).port, 1234);
  assert.deepEqual(
    parseEmulatorArgs(["--metadata-project", "p", "--metadata-email=e@p.iam.gserviceaccount.com"]).metadata,
    {
      projectId: "p",
      email: "e@p.iam.gserviceaccount.com",
    },
  );
  assert.throws(() => parseEmulatorArgs(["--port", "abc"]), /--port/);
  assert.throws(() => parseEmulatorArgs(["--port", "70000"]), /--port/);
  assert.throws(() => parseEmulatorArgs(["--port"]), /needs a value/);
  assert.throws(() => parseEmulatorArgs(["--metadata-project", "p"]), /both/);
  assert.throws(() => parseEmulatorArgs(["--bogus"]), /Unknown option/);
  assert.equal(parseEmulatorArgs(["--metadata-platform", "cloud-run"]).metadataPlatform, "cloud-run");
  assert.equal(parseEmulatorArgs(["--metadata-platform=compute-engine"]).metadataPlatform, "compute-engine");
  assert.throws(() => parseEmulatorArgs(["--metadata-platform", "lambda"]), /compute-engine or cloud-run/);
});

test("parseEmulatorArgs: --service-account EMAIL[=MEMBER,...], repeatable, members checked", () => {
  const sa = "deployer@p.iam.gserviceaccount.com";
  assert.deepEqual(
    parseEmulatorArgs([
      "--service-account",
      `${sa}=user:alice@example.com,principalSet://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/ci/*`,
      `--service-account=other@p.iam.gserviceaccount.com`,
    ]).serviceAccounts,
    [
      {
        email: sa,
        tokenCreators: [
          "user:alice@example.com",
          "principalSet://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/ci/*",
        ],
      },
      { email: "other@p.iam.gserviceaccount.com", tokenCreators: [] },
    ],
  );
  assert.throws(() => parseEmulatorArgs(["--service-account", `${sa}=alice@example.com`]), /not an IAM member/);
  assert.throws(() => parseEmulatorArgs(["--service-account", "deployer"]), /e-mail address/);
});

test("runEmulatorCommand in a child process: prints URL and env, serves, stops cleanly on SIGTERM", async () => {
  const script = `import("cred-auth/emulator").then((m) => m.runEmulatorCommand(process.argv.slice(1))).then(() => process.stdout.write("closed\\n"), (e) => { console.error(e.message); process.exit(3); });`;
  const child = spawn(
    process.execPath,
    [
      "-e",
      script,
      "--",
      "--port",
      "0",
      "--metadata-project",
      "cmd-p",
      "--metadata-email",
      "sa@cmd-p.iam.gserviceaccount.com",
      "--service-account=sa@cmd-p.iam.gserviceaccount.com=serviceAccount:sa@cmd-p.iam.gserviceaccount.com",
    ],
    {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, "exit");
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("GCE_METADATA_HOST")) resolve();
      });
      child.on("exit", () => reject(new Error(`emulator exited early: ${stderr}`)));
    });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
    assert.ok(url, stdout + stderr);
    const host = url.slice("http://".length);
    assert.match(stdout, new RegExp(`export CRED_AUTH_EMULATOR_HOST=${host.replace(/\./g, "\\.")}`));
    assert.match(stdout, new RegExp(`export GCE_METADATA_HOST=${host.replace(/\./g, "\\.")}`));

    const project = await fetch(`${url}/computeMetadata/v1/project/project-id`, {
      headers: { "Metadata-Flavor": "Google" },
    });
    assert.equal(await project.text(), "cmd-p");
    const metadataToken = await fetch(`${url}/computeMetadata/v1/instance/service-accounts/default/token`, {
      headers: { "Metadata-Flavor": "Google" },
    });
    const { access_token } = (await metadataToken.json()) as { access_token: string };
    const impersonated = await fetch(
      `${url}/v1/projects/-/serviceAccounts/sa@cmd-p.iam.gserviceaccount.com:generateAccessToken`,
      {
        method: "POST",
        headers: { Authorization: `Bearer ${access_token}` },
        body: JSON.stringify({ scope: ["https://www.googleapis.com/auth/cloud-platform"] }),
      },
    );
    assert.equal(impersonated.status, 200, "--service-account granted the metadata account the role on itself");
    await fetch(`${url}/__emulator/fail`, { method: "POST", body: JSON.stringify({ count: 1, status: 500 }) });
    const failed = await fetch(`${url}/token`, { method: "POST", body: "grant_type=refresh_token" });
    assert.equal(failed.status, 500);
    const stats = (await (await fetch(`${url}/__emulator/stats`)).json()) as { tokenRequests: number };
    assert.equal(stats.tokenRequests, 1);
    assert.match(stderr, /POST \/token 500/);
    assert.ok(!/refresh_token/.test(stderr), "the request log must not carry bodies or queries");
  } finally {
    child.kill("SIGTERM");
  }
  const [code] = await exited;
  assert.equal(code, 0, stderr);
  assert.match(stdout, /closed/);
});

test("runEmulatorCommand on a port in use fails with a clear message", async () => {
  const { startEmulator } = await import("cred-auth/emulator");
  const taken = await startEmulator();
  try {
    const port = taken.url.split(":").at(-1)!;
    const script = `import("cred-auth/emulator").then((m) => m.runEmulatorCommand(["--port", "${port}"])).catch((e) => { console.error(e.message); process.exit(3); });`;
    const child = spawn(process.execPath, ["-e", script], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const [code] = await once(child, "exit");
    assert.equal(code, 3);
    assert.match(stderr, new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use`));
  } finally {
    await taken.close();
  }
});

test("cred-auth emulator --port N on a busy port: one line naming the port and what to do, exit 3", async () => {
  const taken = await startEmulator();
  try {
    const port = taken.url.split(":").at(-1) ?? "";
    const { env } = sandbox();
    const r = await runCli(["emulator", "--port", port, "--quiet"], env);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(
      r.stderr,
      `cred-auth: port ${port} on 127.0.0.1 is already in use: stop what holds it, or choose another port with --port N (--port 0 picks a free one) (ERR_CONNECTION)\n`,
    );
    assert.doesNotMatch(r.stderr, /unexpected/);
  } finally {
    await taken.close();
  }
});
