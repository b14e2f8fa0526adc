// Detection of every hosted environment (positive and negative) and the registry's rules.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCredentialsError, registerHostedEnvironment } from "cred-auth";
import type { HostedEnvironment } from "cred-auth";
import { builtInEnvironments, builtInEnvironmentsByName, tryHosted } from "../../dist/hosted/registry.js";
import { detectRuntime } from "../../dist/runtime/detect.js";
import { isolateHome, stderrOf } from "./support.ts";

isolateHome();

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform"];

/** What each platform's runtime sets, as documented (FACTS.md section 5). */
const PLATFORM_ENVS: Record<string, NodeJS.ProcessEnv> = {
  colab: { COLAB_RELEASE_TAG: "release-colab_20250626-060053_RC00", COLAB_GPU: "" },
  "colab-enterprise": { VERTEX_PRODUCT: "COLAB_ENTERPRISE" },
  "vertex-workbench": { VERTEX_PRODUCT: "WORKBENCH_INSTANCE" },
  kaggle: {
    KAGGLE_KERNEL_RUN_TYPE: "Interactive",
    KAGGLE_USER_SECRETS_TOKEN: "eyJ.secrets.jwt",
    KAGGLE_URL_BASE: "https://www.kaggle.com",
  },
  "cloud-workstations": { GOOGLE_CLOUD_WORKSTATIONS: "true" },
  "cloud-shell": { CLOUD_SHELL: "true" },
};

const plain: NodeJS.ProcessEnv = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: "/home/user",
  USER: "user",
  LANG: "C.UTF-8",
  SHELL: "/bin/bash",
};

const NEGATIVE_ENVS: Record<string, NodeJS.ProcessEnv> = {
  "an empty environment": {},
  "a plain machine": plain,
  "GitHub Actions CI": {
    ...plain,
    CI: "true",
    GITHUB_ACTIONS: "true",
    RUNNER_OS: "Linux",
    GITHUB_WORKSPACE: "/home/runner/work",
  },
  "GitLab CI": { ...plain, CI: "true", GITLAB_CI: "true" },
  "a local Jupyter kernel": {
    ...plain,
    JPY_PARENT_PID: "4242",
    JPY_SESSION_NAME: "/home/user/nb.ipynb",
    JUPYTER_SERVER_ROOT: "/home/user",
  },
  "a stray VERTEX_PRODUCT": { ...plain, VERTEX_PRODUCT: "VERTEX_AI_STUDIO" },
  "a lower-case VERTEX_PRODUCT": { ...plain, VERTEX_PRODUCT: "workbench_instance" },
  "an empty COLAB_RELEASE_TAG": { ...plain, COLAB_RELEASE_TAG: "" },
  "Kaggle's run type without a secrets token": { ...plain, KAGGLE_KERNEL_RUN_TYPE: "Batch" },
  "a Kaggle secrets token without a run type": { ...plain, KAGGLE_USER_SECRETS_TOKEN: "x" },
  "CLOUD_SHELL=false": { ...plain, CLOUD_SHELL: "false" },
  "GOOGLE_CLOUD_WORKSTATIONS=1": { ...plain, GOOGLE_CLOUD_WORKSTATIONS: "1" },
  "a DEVSHELL_CLIENT_PORT that is no port": { ...plain, DEVSHELL_CLIENT_PORT: "abc" },
  "DEVSHELL_CLIENT_PORT=0": { ...plain, DEVSHELL_CLIENT_PORT: "0" },
  "DEVSHELL_CLIENT_PORT=70000": { ...plain, DEVSHELL_CLIENT_PORT: "70000" },
  "only a metadata host (a GCE VM is ADC's business)": { ...plain, GCE_METADATA_HOST: "127.0.0.1:9" },
};

function detected(env: NodeJS.ProcessEnv): string[] {
  return builtInEnvironments.filter((e) => e.detect(env)).map((e) => e.name);
}

test("the built-ins are the six documented platforms, Colab first", () => {
  assert.deepEqual(
    builtInEnvironments.map((e) => e.name),
    ["colab", "colab-enterprise", "vertex-workbench", "kaggle", "cloud-workstations", "cloud-shell"],
  );
});

test("each built-in is filed under its own name in the shared platform table", () => {
  for (const [name, environment] of Object.entries(builtInEnvironmentsByName)) assert.equal(environment.name, name);
  assert.deepEqual(Object.keys(PLATFORM_ENVS).sort(), Object.keys(builtInEnvironmentsByName).sort());
});

for (const [name, env] of Object.entries(PLATFORM_ENVS)) {
  test(`${name} is a remote workspace for the runtime detection: the browser is elsewhere`, () => {
    const facts = { platform: "linux" as const, stdinIsTTY: true, stdoutIsTTY: true, stderrIsTTY: true };
    const runtime = detectRuntime(
      { ...env, DISPLAY: ":0" },
      {},
      { ...facts, hostname: "box", inContainer: () => false },
    );
    assert.equal(runtime.remote, true, runtime.reasons.join("; "));
  });
}

for (const [name, env] of Object.entries(PLATFORM_ENVS)) {
  test(`${name} is detected from its environment variables alone, and nothing else is`, () => {
    assert.deepEqual(detected(env), [name]);
    assert.deepEqual(detected({ ...plain, JPY_PARENT_PID: "77", ...env }), [name], "also inside a Jupyter kernel");
  });
}

test("Cloud Shell's legacy devshell port alone is detected", () => {
  assert.deepEqual(detected({ ...plain, DEVSHELL_CLIENT_PORT: "41001" }), ["cloud-shell"]);
});

for (const [what, env] of Object.entries(NEGATIVE_ENVS)) {
  test(`no hosted environment is detected in ${what}`, async () => {
    assert.deepEqual(detected(env), []);
    const { result, attempts } = await tryHosted(SCOPES, true, env);
    assert.equal(result, undefined);
    assert.deepEqual(attempts, []);
  });
}

test("hosted: false and CRED_AUTH_HOSTED=off skip the layer even where a platform is detected", async () => {
  let asked = 0;
  const probe: HostedEnvironment = {
    name: "probe",
    detect: () => true,
    credentials: async () => {
      asked++;
      throw new Error("asked");
    },
  };
  const env = { ...PLATFORM_ENVS.colab, GCE_METADATA_HOST: "127.0.0.1:9" };
  assert.deepEqual(await tryHosted(SCOPES, false, env), { attempts: [] });
  for (const off of ["off", "OFF", "false", "0"]) {
    assert.deepEqual(await tryHosted(SCOPES, [probe], { ...env, CRED_AUTH_HOSTED: off }), { attempts: [] });
  }
  assert.equal(asked, 0);
  const on = await tryHosted(SCOPES, [probe], { ...plain, CRED_AUTH_HOSTED: "on" });
  assert.equal(asked, 1);
  assert.equal(on.attempts[0]?.name, "probe");
});

/** A fake client good enough for the registry's check (it only needs getAccessToken). */
function fakeClient(token: string) {
  return { getAccessToken: async () => ({ token }) } as unknown as import("google-auth-library").AuthClient;
}

function environment(
  name: string,
  options: { detect?: boolean; fail?: unknown; projectId?: string | null } = {},
): HostedEnvironment & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    name,
    asked,
    detect: () => options.detect ?? true,
    async credentials(scopes) {
      asked.push([...scopes]);
      if (options.fail !== undefined) throw options.fail;
      return { credentials: fakeClient(`${name}-token`), projectId: options.projectId ?? null };
    },
  };
}

test("a registered environment is asked before the built-ins, newest first, and can be removed", async (t) => {
  const colabEnv = { ...PLATFORM_ENVS.colab, GCE_METADATA_HOST: "127.0.0.1:9" };
  const older = environment("older", { projectId: "p-older" });
  const newer = environment("newer", { detect: false });
  const removeOlder = registerHostedEnvironment(older);
  const removeNewer = registerHostedEnvironment(newer);
  t.after(() => {
    removeOlder();
    removeNewer();
  });

  const first = await tryHosted(SCOPES, true, colabEnv);
  assert.equal(first.result?.name, "older");
  assert.equal(first.result?.projectId, "p-older");
  assert.deepEqual(older.asked, [SCOPES]);
  assert.deepEqual(newer.asked, [], "an environment that does not detect itself is not asked");

  const inOptions = environment("from-options");
  const second = await tryHosted(SCOPES, [inOptions], colabEnv);
  assert.equal(second.result?.name, "from-options", "options.hosted environments come before registered ones");

  removeOlder();
  removeOlder(); // removing twice is harmless
  const third = await tryHosted(SCOPES, true, { ...colabEnv, CRED_AUTH_DEBUG: "" });
  assert.equal(third.result, undefined);
  assert.deepEqual(
    third.attempts.map((a) => a.name),
    ["colab"],
    "the built-in Colab was asked once the registered one was gone",
  );
});

test("registering the same environment twice keeps one entry", async (t) => {
  const once = environment("once", { fail: new Error("nope") });
  const remove1 = registerHostedEnvironment(once);
  const remove2 = registerHostedEnvironment(once);
  t.after(() => {
    remove1();
    remove2();
  });
  const { attempts } = await tryHosted(SCOPES, true, plain);
  assert.deepEqual(
    attempts.map((a) => a.name),
    ["once"],
  );
});

test("registerHostedEnvironment rejects what is not an environment", () => {
  for (const bad of [
    undefined,
    {},
    { name: "", detect: () => true, credentials: async () => null },
    { name: "x", detect: true, credentials: async () => null },
    { name: "x", detect: () => true },
  ]) {
    assert.throws(() => registerHostedEnvironment(bad as unknown as HostedEnvironment), TypeError);
  }
});

test("every failure is recorded under the environment's name as a one-line error, and the next one is asked", async () => {
  const multiLine = environment("multi", { fail: new Error("first line\n  at secret stack\n  more") });
  const notAnError = environment("string-thrower", { fail: "just a string" });
  const badDetect: HostedEnvironment = {
    name: "bad-detect",
    detect: () => {
      throw new RangeError("detect exploded");
    },
    credentials: async () => ({ credentials: fakeClient("never"), projectId: null }),
  };
  const noClient: HostedEnvironment = {
    name: "no-client",
    detect: () => true,
    credentials: async () => ({ credentials: {} as never, projectId: null }),
  };
  const ours = new CredCredentialsError("mine: kept as is");
  const typed = environment("typed", { fail: ours });
  const good = environment("good", { projectId: "p" });

  const { result, attempts } = await tryHosted(
    SCOPES,
    [multiLine, notAnError, badDetect, noClient, typed, good],
    plain,
  );
  assert.equal(result?.name, "good");
  assert.deepEqual(
    attempts.map((a) => a.name),
    ["multi", "string-thrower", "bad-detect", "no-client", "typed"],
  );
  for (const { name, error } of attempts) {
    assert.ok(error instanceof Error);
    assert.doesNotMatch(error.message, /\n/);
    if (name !== "typed") assert.match(error.message, new RegExp(`^${name}: `));
  }
  assert.equal(attempts[0]!.error.message, "multi: Error: first line");
  assert.equal(attempts[1]!.error.message, "string-thrower: string");
  assert.equal(attempts[2]!.error.message, "bad-detect: RangeError: detect exploded");
  assert.match(attempts[3]!.error.message, /^no-client: credentials\(\) gave no google-auth-library client/);
  assert.equal(attempts[4]!.error, ours, "cred-auth errors are kept as thrown");
  assert.equal(result?.projectId, "p");
});

test("with CRED_AUTH_DEBUG=1 each failure is one stderr line naming the environment and the reason, and no token", async () => {
  const failing = environment("failing", { fail: new CredCredentialsError("failing: the platform said no") });
  const good = environment("good");
  const env = { ...plain, CRED_AUTH_DEBUG: "1" };
  const { text } = await stderrOf(() => tryHosted(SCOPES, [failing, good], env));
  const lines = text.trimEnd().split("\n");
  assert.equal(lines.length, 2, text);
  assert.match(lines[0]!, /^cred-auth: .*failing.*the platform said no$/);
  assert.match(lines[1]!, /^cred-auth: .*good.*credentials obtained/);
  assert.doesNotMatch(text, /good-token/);

  const { text: quiet } = await stderrOf(() => tryHosted(SCOPES, [failing, good], plain));
  assert.equal(quiet, "", "no debug output without CRED_AUTH_DEBUG=1");
});
