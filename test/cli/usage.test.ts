// The command line's shape: help, version, usage errors and their exit codes (no network).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runCli, sandbox } from "./support.ts";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

function oneErrorLine(stderr: string): string {
  const lines = stderr.split("\n").filter(Boolean);
  assert.equal(lines.length, 1, `expected one line on stderr, got: ${stderr}`);
  assert.match(lines[0]!, /^cred-auth: /);
  assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
  return lines[0]!;
}

test("no command: the program's help on stderr, exit 2", async () => {
  const { env } = sandbox();
  const r = await runCli([], env);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^Usage: cred-auth COMMAND/);
  for (const command of ["login", "print-token", "emulator"]) assert.match(r.stderr, new RegExp(`\\n  ${command} `));
});

test("-h, --help and `help`: the program's help on stdout, exit 0", async () => {
  const { env } = sandbox();
  for (const args of [["-h"], ["--help"], ["help"]]) {
    const r = await runCli(args, env);
    assert.equal(r.code, 0, args.join(" "));
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^Usage: cred-auth COMMAND/);
    assert.match(
      r.stdout,
      /Exit codes: 0 success, 1 credentials error, 2 usage error, 3 connection error, 130 cancelled/,
    );
  }
});

test("--version, -v and -V print package.json's version", async () => {
  const { env } = sandbox();
  for (const flag of ["--version", "-v", "-V"]) {
    const r = await runCli([flag], env);
    assert.equal(r.code, 0, flag);
    assert.equal(r.stdout, `${pkg.version}\n`, flag);
    assert.equal(r.stderr, "", flag);
  }
  assert.match((await runCli(["--help"], env)).stdout, /\n {2}-v, --version {2}print the version\n/);
});

test("each command's --help lists its arguments and every documented flag", async () => {
  const { env } = sandbox();
  const expected: Record<string, string[]> = {
    login: [
      "DESTINATION",
      "--scopes",
      "--client_id, --client-id",
      "--client_secret, --client-secret",
      "--client-secret-file",
      "--redirect_uri, --redirect-uri",
      "--use_local_webserver",
      "--nouse_local_webserver, --no-use-local-webserver",
      "--timeout",
      "--no-browser",
      "--remember",
    ],
    "print-token": [
      "[FILE]",
      "without it, the credentials default() would use",
      "--scopes",
      "--fresh",
      "--format",
      "--header",
      "Authorization: Bearer $(cred-auth print-token creds.json)",
    ],
    emulator: ["--port", "--metadata-project", "--metadata-email"],
    config: [
      "init [CLIENT_FILE]",
      "set KEY VALUE",
      "get KEY",
      "unset KEY",
      "list",
      "path",
      "client-secret-file PATH",
      "client-id ID",
      "scopes S1,S2",
      "ui auto|plain|terminal",
      "loopback-ports FIRST-LAST",
      "remote true|false",
    ],
  };
  for (const [command, words] of Object.entries(expected)) {
    for (const args of [
      [command, "--help"],
      [command, "-h"],
      ["help", command],
    ]) {
      const r = await runCli(args, env);
      assert.equal(r.code, 0, args.join(" "));
      assert.match(r.stdout, new RegExp(`^Usage: cred-auth ${command}`));
      for (const word of words) assert.ok(r.stdout.includes(word), `${args.join(" ")} help lacks ${word}`);
    }
  }
});

test("login --help says when each flow is chosen and calls neither the default; the program's help lists config", async () => {
  const { env } = sandbox();
  const help = (await runCli(["login", "--help"], env)).stdout;
  assert.doesNotMatch(help, /\(the default\)/);
  assert.match(help, /--use_local_webserver[\s\S]*chosen unless this machine looks remote/);
  assert.match(help, /--nouse_local_webserver[\s\S]*chosen on a machine that looks remote/);
  assert.match(help, /cred-auth config set client-secret-file PATH/);
  assert.match((await runCli(["--help"], env)).stdout, /^ {2}config +Keep settings/m);
});

test("--help wins over other mistakes on the same line", async () => {
  const { env } = sandbox();
  const r = await runCli(["print-token", "--bogus", "--help"], env);
  assert.equal(r.code, 2, "an unknown option before --help is still an error");
  const ok = await runCli(["print-token", "--help", "extra", "args"], env);
  assert.equal(ok.code, 0);
  assert.match(ok.stdout, /^Usage: cred-auth print-token/);
});

test("usage errors: one line naming the problem and the help to read, exit 2", async () => {
  const { env } = sandbox();
  const cases: [string[], RegExp][] = [
    [["frobnicate"], /unknown command \(not shown: it may be a secret\); the commands are .*\(see cred-auth --help\)$/],
    [["prnt-token"], /unknown command \(not shown: it may be a secret\) \(did you mean print-token\?\); the commands/],
    [["statsu"], /\(did you mean status\?\)/],
    [["Login"], /\(did you mean login\?\)/],
    [["--frob"], /unknown option \(not shown: it may be a secret\).*\(see cred-auth --help\)$/],
    [["login"], /missing DESTINATION \(see cred-auth login --help\)$/],
    [
      ["print-token", "a.json", "b.json"],
      /too many arguments: expected at most 1, got 2 \(see cred-auth print-token --help\)$/,
    ],
    [
      ["print-token", "a.json", "--format", "yaml"],
      /--format must be text or json \(see cred-auth print-token --help\)$/,
    ],
    [["print-token", "a.json", "--format", "json", "--header"], /cannot be combined/],
    [["print-token", "a.json", "--scopes"], /option --scopes needs a value/],
    [
      ["print-token", "a.json", "--scopes", " , ,"],
      /--scopes needs at least one scope \(see cred-auth print-token --help\)$/,
    ],
    [["print-token", "a.json", "--fresh=yes"], /option --fresh takes no value/],
    [
      ["login", "out.json", "--timeout", "soon"],
      /--timeout needs a positive number of seconds \(see cred-auth login --help\)$/,
    ],
    [["login", "out.json", "--timeout", "-5"], /--timeout needs a positive number of seconds/],
    [["login", "out.json", "--client_id", "only-an-id"], /--client_id and --client_secret go together/],
    [
      ["login", "out.json", "--client-secret-file", "x.json", "--client-id", "id"],
      /either --client-secret-file or --client_id/,
    ],
    [["login", "out.json", "--ui", "fancy"], /--ui must be one of auto, plain, terminal/],
    [
      ["login", "out.json", "--clientId", "x"],
      /unknown option at argument 2 \(not shown: it may be a secret\) \(did you mean --client_id\?\)/,
    ],
    [
      ["print-token", "key.json", "--scope", "https://www.googleapis.com/auth/cloud-platform"],
      /^cred-auth: unknown option at argument 2 \(not shown: it may be a secret\) \(did you mean --scopes\?\) \(see cred-auth print-token --help\)$/m,
    ],
    [["login", "out.json", "--scopess", "x"], /\(did you mean --scopes\?\)/],
    [["login", "out.json", "--fresh"], /unknown option at argument 2 \(not shown: it may be a secret\) \(see/],
    [["emulator", "--bogus"], /Unknown option "\(not shown: it may be a secret\)".*\(see cred-auth emulator --help\)$/],
    [["emulator", "--port", "http"], /--port must be a number/],
    [["config"], /missing ACTION: init, set, get, unset, list, path \(see cred-auth config --help\)$/],
    [["config", "frob"], /unknown action \(not shown: it may be a secret\)/],
    [
      ["config", "set", "colour", "blue"],
      /unknown setting \(not shown: it may be a secret\); the settings are client-secret-file, /,
    ],
    [["config", "set", "ui"], /config set takes KEY VALUE pairs/],
    [["config", "set", "ui", "fancy"], /ui needs auto\|plain\|terminal/],
    [["config", "set", "loopback-ports", "9-1"], /loopback-ports needs FIRST-LAST/],
    [["config", "set", "client-secret", "GOCSPX-x"], /client-id and client-secret go together/],
    [["config", "get", "client-secret"], /client-secret is never printed/],
    [["config", "list", "extra"], /too many arguments/],
    [["config", "--global"], /unknown option \(not shown: it may be a secret\)/],
    [["login", "out.json", "--remember"], /--remember keeps the --client-secret-file FILE/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runCli(args, env);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    const line = oneErrorLine(r.stderr);
    assert.match(line, pattern, args.join(" "));
    assert.ok(line.length <= 240, `${args.join(" ")}: longer than two 120-column lines: ${line}`);
  }
});

test("usage errors never echo a value: a mistyped option or stray argument may be a secret", async () => {
  const { env } = sandbox();
  // A Google-shaped secret, and one that looks like a name (letters and dashes: these were echoed once).
  for (const secret of ["GOCSPX-never-print-this-value", "Hunter-Twos-Secret"]) {
    for (const args of [
      ["login", "out.json", `--client_secrt=${secret}`],
      ["login", "out.json", secret],
      ["login", "out.json", `--${secret}`],
      [secret],
      [`--${secret}`],
      ["print-token", "a.json", `--scope=${secret}`],
      ["print-token", "a.json", `--${secret}`],
      ["emulator", "--port", secret],
      ["emulator", `--port=${secret}`],
      ["emulator", secret],
      ["emulator", `--${secret}`],
      ["config", "set", "client-id", secret],
      ["config", "set", secret, "x"],
      ["config", "set", "ui", secret],
      ["config", "set", "remote", secret],
      ["config", "get", secret],
      ["config", "unset", secret],
      ["config", secret],
      ["config", `--${secret}`],
      ["help", secret],
    ]) {
      const r = await runCli(args, env);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.ok(
        !r.stderr.includes(secret) && !r.stdout.includes(secret),
        `${args.join(" ")} echoed the value: ${r.stderr}`,
      );
    }
  }
});

test("underscore and kebab spellings, --opt=value and --opt value are the same option", async () => {
  const { env } = sandbox();
  // Each line gets past parsing (the dispatcher then fails on the destination being a directory: exit 2 from login itself).
  for (const args of [
    ["login", "/", "--client_id=a", "--client_secret=b"],
    ["login", "/", "--client-id", "a", "--client-secret", "b"],
    ["login", "/", "--use_local_webserver"],
    ["login", "/", "--use-local-webserver"],
    ["login", "/", "--nouse_local_webserver"],
    ["login", "/", "--no-use-local-webserver"],
    ["login", "/", "--nouse-local-webserver"],
    ["login", "/", "--no-browser", "--timeout=1.5", "--scopes", "a, b"],
  ]) {
    const r = await runCli(args, env);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, /^cred-auth: DESTINATION "\/" is a directory/, args.join(" "));
  }
});
