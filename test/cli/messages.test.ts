// Every message fits two lines of a 120-column terminal and says what, why and what to do (issue 48):
// the situations a newcomer meets, each run as a person runs it (the built CLI, the emulator), and
// the last line it printed measured as printed: "cred-auth: " + message + " (ERR_...)".
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { approveSignIn } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { collect, runCli, sandbox, startCli, waitForStderr } from "./support.ts";

const emulator = await withEmulator();
const COLUMNS = 120;

/** The rows `text` takes on a 120-column terminal. */
const rows = (text: string): number =>
  text.split("\n").reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / COLUMNS)), 0);

/** The last line the CLI said that starts with `start` (by default the error, or the warning, it ended with). */
const lastSaid = (stderr: string, start = "cred-auth: "): string =>
  stderr
    .trimEnd()
    .split("\n")
    .filter((line) => line.startsWith(start))
    .at(-1) ?? "";

/** A login whose sign-in link the browser answers (`approve`: the emulator's consent page). */
async function loginAnswered(args: string[], env: NodeJS.ProcessEnv, approve: object): Promise<string> {
  const child = startCli(["login", ...args], env);
  child.stdin!.end();
  const done = collect(child);
  const [url] = await waitForStderr(child, /http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+/);
  await approveSignIn(url, approve);
  return (await done).stderr;
}

/** A login cancelled while it waits for the browser, as Ctrl+C at a terminal does (SIGINT). */
async function loginInterrupted(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = startCli(["login", ...args], env);
  child.stdin!.end();
  const done = collect(child);
  await waitForStderr(child, /http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+/);
  child.kill("SIGINT");
  return (await done).stderr;
}

test("the messages a newcomer meets each fit two 120-column lines, and name what to do", async () => {
  const box = sandbox(undefined);
  const local = { ...box.env, CRED_AUTH_EMULATOR_HOST: emulator.host, CRED_AUTH_REMOTE: "0" };
  const node = dirname(process.execPath);
  const file = (name: string, json: object): string => {
    const path = join(box.dir, name);
    writeFileSync(path, JSON.stringify(json));
    return path;
  };
  const httpTokenUri = file("http.json", {
    type: "authorized_user",
    client_id: "a",
    client_secret: "b",
    refresh_token: "c",
    token_uri: "http://example.com/token",
  });
  const { project_id: _, ...projectless } = emulator.createServiceAccountKey();
  const noProject = file("no-project.json", projectless);
  const notJson = join(box.dir, "not-json.json");
  writeFileSync(notJson, "{ this is not JSON");
  const keyAsClient = file("key-as-client.json", emulator.createServiceAccountKey());
  const gcloud = join(box.dir, "bin");
  mkdirSync(gcloud);
  writeFileSync(join(gcloud, "gcloud"), "#!/bin/sh\n", { mode: 0o755 });
  const cli = async (args: string[], env: NodeJS.ProcessEnv = box.env) => (await runCli(args, env)).stderr;
  const situations: Array<[string, () => Promise<string>]> = [
    ["an unknown option (--scope)", () => cli(["login", "x.json", "--scope", "x"])],
    ["an unknown command", () => cli(["logni"])],
    ["no OAuth client, no gcloud", () => cli(["login", "x.json", "--use_local_webserver"], { ...box.env, PATH: node })],
    [
      "no OAuth client, gcloud",
      () => cli(["login", "x.json", "--use_local_webserver"], { ...box.env, PATH: `${gcloud}:${node}` }),
    ],
    ["an http:// token_uri", () => cli(["print-token", httpTokenUri])],
    ["a key without project_id", () => cli(["print-token", noProject])],
    ["a key given as the OAuth client", () => cli(["config", "init", keyAsClient])],
    ["a missing file", () => cli(["print-token", join(box.dir, "missing.json")])],
    ["nothing to print a token of", () => cli(["print-token"])],
    ["nothing to revoke", () => cli(["revoke"])],
    ["a short scope", () => cli(["login", "s.json", "--scopes", "bigquery"], local)],
    [
      "a misspelt scope",
      () => cli(["login", "s.json", "--scopes", "https://www.googleapis.com/auth/cloud-platfrom"], local),
    ],
    ["the emulator not running", () => cli(["login", "d.json"], { ...local, CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9" })],
    [
      "a client the emulator does not know",
      () =>
        cli(["login", "c.json"], {
          ...local,
          CRED_AUTH_CLIENT_ID: "1234-own.apps.googleusercontent.com",
          CRED_AUTH_CLIENT_SECRET: "s",
        }),
    ],
    ["stdin closed where a code is asked", () => cli(["login", "e.json", "--nouse_local_webserver"], local)],
    [
      "a wrong code pasted (the refusal, before the prompt asks again)",
      async () => {
        const { stderr } = await runCli(["login", "w.json", "--nouse_local_webserver"], local, {
          stdin: "4/0AWrongCode\n",
        });
        const refusal = lastSaid(stderr, "Not accepted: ");
        return refusal && `cred-auth: ${refusal}`;
      },
    ],
    ["a credentials file that is not JSON", () => cli(["print-token", notJson])],
    ["a sign-in cancelled (Ctrl+C)", () => loginInterrupted([join(box.dir, "c.json")], local)],
    ["Deny in the browser", () => loginAnswered([join(box.dir, "deny.json")], local, { decision: "deny" })],
    [
      "a service account the emulator does not know",
      () =>
        loginAnswered(
          [join(box.dir, "imp.json"), "--impersonate-service-account", "nobody@my-project.iam.gserviceaccount.com"],
          local,
          {},
        ),
    ],
  ];
  const tooLong: string[] = [];
  for (const [what, run] of situations) {
    const line = lastSaid(await run());
    assert.notEqual(line, "", `${what}: the CLI said something`);
    console.log(`${what}: ${line.length} characters`);
    if (rows(line) > 2) tooLong.push(`${what} (${line.length}): ${line}`);
  }
  assert.deepEqual(tooLong, [], "every message fits two 120-column lines");
});
