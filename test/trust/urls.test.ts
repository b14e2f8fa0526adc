// The URL policy (src/trust/urls.ts): the universe is the user's word (the option, then
// GOOGLE_CLOUD_UNIVERSE_DOMAIN, then googleapis.com), never the file's; every URL that would receive a
// secret must be Google's service in that universe, or loopback with the emulator (or, for a file's
// own secret, loopback at all); each refusal is one coded line naming the file, the field and both
// universes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCredentialsError, ERROR_CODES, exceptions } from "cred-auth";
import {
  DEFAULT_UNIVERSE,
  UNIVERSE_ENV,
  checkFileUniverse,
  emulatorBaseUrl,
  refuseUrlCredentials,
  googleConsoleLink,
  isEmulatorUrl,
  isLoopbackHostname,
  isLoopbackName,
  trustedImdsUrl,
  trustedUniverse,
  trustedUrl,
} from "../../dist/trust/urls.js";

const EMU = { CRED_AUTH_EMULATOR_HOST: "127.0.0.1:9099" };
const STS = { service: "sts", field: "token_url", file: "/x/wif.json" } as const;
const OAUTH = { service: "oauth2", field: "token_uri", file: "/x/adc.json", ownSecretOnly: true } as const;

function refused(run: () => unknown, code: string, message: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof exceptions.CredCredentialsError, String(error));
    assert.equal(error.name, "CredCredentialsError");
    assert.equal(error.code, code);
    assert.match(error.message, message);
    assert.ok(!/[\r\n]/.test(error.message), "one line");
    return true;
  });
}

test("the universe: googleapis.com unless the option or GOOGLE_CLOUD_UNIVERSE_DOMAIN says otherwise; the option wins", () => {
  assert.equal(UNIVERSE_ENV, "GOOGLE_CLOUD_UNIVERSE_DOMAIN");
  assert.equal(DEFAULT_UNIVERSE, "googleapis.com");
  assert.deepEqual(trustedUniverse({}), { domain: "googleapis.com", chosenBy: "default" });
  assert.deepEqual(trustedUniverse({ [UNIVERSE_ENV]: "  " }), { domain: "googleapis.com", chosenBy: "default" });
  assert.deepEqual(trustedUniverse({ [UNIVERSE_ENV]: " Example-Cloud.COM " }), {
    domain: "example-cloud.com",
    chosenBy: "environment",
  });
  assert.deepEqual(trustedUniverse({ [UNIVERSE_ENV]: "env.example" }, "opt.example"), {
    domain: "opt.example",
    chosenBy: "option",
  });
  assert.deepEqual(trustedUniverse({}, " Opt.Example "), { domain: "opt.example", chosenBy: "option" });
  assert.deepEqual(trustedUniverse({ [UNIVERSE_ENV]: "env.example" }, " "), {
    domain: "env.example",
    chosenBy: "environment",
  });
  assert.deepEqual(trustedUniverse(EMU), {
    domain: "googleapis.com",
    chosenBy: "default",
    emulator: "http://127.0.0.1:9099",
  });
  assert.deepEqual(trustedUniverse({ ...EMU, CRED_AUTH_EMULATOR_HOST: "  " }), {
    domain: "googleapis.com",
    chosenBy: "default",
  });
  const saved = process.env[UNIVERSE_ENV];
  process.env[UNIVERSE_ENV] = "from-process.example";
  try {
    assert.equal(trustedUniverse().domain, "from-process.example", "process.env by default");
  } finally {
    if (saved === undefined) delete process.env[UNIVERSE_ENV];
    else process.env[UNIVERSE_ENV] = saved;
  }
});

test("a universe that is not a domain is refused where it was given, one line, its value escaped", () => {
  for (const [env, option, where] of [
    [{ [UNIVERSE_ENV]: "googleapis" }, undefined, UNIVERSE_ENV],
    [{ [UNIVERSE_ENV]: "a.b" }, undefined, UNIVERSE_ENV],
    [{ [UNIVERSE_ENV]: "127.0.0.1" }, undefined, UNIVERSE_ENV],
    [{ [UNIVERSE_ENV]: "evil.example/x" }, undefined, UNIVERSE_ENV],
    [{ [UNIVERSE_ENV]: "-a.example" }, undefined, UNIVERSE_ENV],
    [{ [UNIVERSE_ENV]: "a-.example" }, undefined, UNIVERSE_ENV],
    [{ [UNIVERSE_ENV]: `${"a".repeat(64)}.example` }, undefined, UNIVERSE_ENV],
    [{ [UNIVERSE_ENV]: `${"a.".repeat(130)}example` }, undefined, UNIVERSE_ENV],
    [{}, "\u001b]0;x\u0007.example", "the universeDomain option"],
  ] as const) {
    assert.throws(
      () => trustedUniverse(env, option),
      (error: unknown) => {
        assert.ok(error instanceof CredCredentialsError);
        assert.equal(error.code, ERROR_CODES.INVALID_OPTION);
        assert.ok(error.message.startsWith(`${where} is not a domain such as googleapis.com (`), error.message);
        assert.ok(!error.message.includes("\u001b"), "escaped");
        return true;
      },
      JSON.stringify(env),
    );
  }
  assert.equal(trustedUniverse({ [UNIVERSE_ENV]: `${"a".repeat(63)}.example` }).chosenBy, "environment");
  assert.throws(
    () => trustedUniverse({ [UNIVERSE_ENV]: `x${"/".repeat(200)}` }),
    (error: Error) => error.message.endsWith(`(${JSON.stringify(`x${"/".repeat(99)}`)}).`),
    "the value is cut at 100 characters",
  );
  assert.equal(trustedUniverse({ [UNIVERSE_ENV]: "x.y.example" }).domain, "x.y.example");
});

test("Google's URL of each service in the trusted universe passes unchanged; with the emulator it goes there", () => {
  const google = trustedUniverse({});
  assert.equal(trustedUrl("https://sts.googleapis.com/v1/token", STS, google), "https://sts.googleapis.com/v1/token");
  assert.equal(
    trustedUrl("https://sts.googleapis.com:443/v1/token", STS, google),
    "https://sts.googleapis.com/v1/token",
  );
  for (const [service, url] of [
    ["iamcredentials", "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/a@b.c:generateAccessToken"],
    ["cloudresourcemanager", "https://cloudresourcemanager.googleapis.com/v1/projects/"],
    ["oauth2", "https://oauth2.googleapis.com/token"],
    ["oauth2", "https://accounts.google.com/o/oauth2/token"],
    ["oauth2", "https://www.googleapis.com/oauth2/v4/token"],
  ] as const)
    assert.equal(trustedUrl(url, { service, field: "f" }, google), url, url);
  const emulated = trustedUniverse(EMU);
  assert.equal(trustedUrl("https://sts.googleapis.com/v1/token?x=1", STS, emulated), "http://127.0.0.1:9099/v1/token");
  assert.equal(
    trustedUrl("https://www.googleapis.com/oauth2/v4/token", { service: "oauth2", field: "token_uri" }, emulated),
    "http://127.0.0.1:9099/token",
    "every alias of Google's token endpoint is the emulator's token endpoint",
  );
  assert.equal(trustedUrl("http://127.0.0.1:9099/v1/token", STS, emulated), "http://127.0.0.1:9099/v1/token");
  assert.equal(
    trustedUrl("http://localhost:9/x", STS, trustedUniverse({ CRED_AUTH_EMULATOR_HOST: "localhost:9" })),
    "http://localhost:9/x",
  );
  assert.equal(
    trustedUrl("http://[::1]:5/x", STS, trustedUniverse({ CRED_AUTH_EMULATOR_HOST: "[::1]:5" })),
    "http://[::1]:5/x",
  );
});

test("with the emulator, plain http goes to exactly its host and port: another local user's port is refused", () => {
  const emulated = trustedUniverse(EMU); // 127.0.0.1:9099
  for (const url of [
    "http://127.0.0.1:5/v1/token",
    "http://127.0.0.1:9098/v1/token",
    "http://127.0.0.2:9099/v1/token",
    "http://localhost:9099/v1/token",
    "http://[::1]:9099/v1/token",
    "http://127.0.0.1/v1/token",
  ])
    refused(
      () => trustedUrl(url, STS, emulated),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      / \(http only to the emulator, http:\/\/127\.0\.0\.1:9099\): no token goes there; fix it or remake the file\.$/,
    );
  for (const url of ["http://user:pw@127.0.0.1:9099/v1/token", "http://user@127.0.0.1:9099/v1/token"])
    refused(
      () => trustedUrl(url, STS, emulated),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      /names "http:\/\/127[^"]*" as its token_url/,
    );
  // A URL that receives only the file's own secret keeps its local token server, but never with user info.
  assert.equal(trustedUrl("http://127.0.0.1:5/token", OAUTH, emulated), "http://127.0.0.1:5/token");
  for (const url of ["http://user:pw@127.0.0.1:5/token", "http://user@localhost:5/token"])
    refused(() => trustedUrl(url, OAUTH, trustedUniverse({})), ERROR_CODES.UNSAFE_TOKEN_URL, /as its token_uri/);
});

test("another universe's services pass only when the user chose it; never the legacy Google hosts there", () => {
  const tpc = trustedUniverse({ [UNIVERSE_ENV]: "tpc.example" });
  assert.equal(trustedUrl("https://sts.tpc.example/v1/token", STS, tpc), "https://sts.tpc.example/v1/token");
  assert.equal(trustedUrl("https://oauth2.tpc.example/token", OAUTH, tpc), "https://oauth2.tpc.example/token");
  for (const url of ["https://sts.googleapis.com/v1/token", "https://accounts.google.com/o/oauth2/token"])
    refused(
      () => trustedUrl(url, { service: url.includes("sts") ? "sts" : "oauth2", field: "f" }, tpc),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      /not Google's .* \((sts|oauth2)\.tpc\.example\): no token goes there/,
    );
  // With the emulator, another universe's real services are not rewritten and not trusted either.
  refused(
    () =>
      trustedUrl("https://sts.tpc.example/v1/token", STS, trustedUniverse({ ...EMU, [UNIVERSE_ENV]: "tpc.example" })),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /sts\.tpc\.example/,
  );
});

test("everything else is refused: other hosts, lookalikes, ports, user info, plain http, other schemes", () => {
  const google = trustedUniverse({});
  const emulated = trustedUniverse(EMU);
  for (const [url, universe] of [
    ["https://sts.attacker.example/v1/token", google],
    ["https://sts.googleapis.com.attacker.example/v1/token", google],
    ["https://evil-sts.googleapis.com/v1/token", google],
    ["https://iamcredentials.googleapis.com/v1/token", google],
    ["https://sts.googleapis.com:8443/v1/token", google],
    ["https://user@sts.googleapis.com/v1/token", google],
    ["https://:pw@sts.googleapis.com/v1/token", google],
    ["http://sts.googleapis.com/v1/token", google],
    ["ftp://sts.googleapis.com/v1/token", google],
    ["http://127.0.0.1:9/v1/token", google],
    ["http://10.0.0.1:9/v1/token", emulated],
    ["https://127.0.0.1:9/v1/token", emulated],
    ["file:///etc/passwd", emulated],
  ] as const)
    refused(
      () => trustedUrl(url, STS, universe),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      /^Credentials file "\/x\/wif\.json" names ".*" as its token_url, not Google's Security Token Service \(sts\.googleapis\.com\)( \(http only with CRED_AUTH_EMULATOR_HOST set\))?: no token goes there; fix it or remake the file\.$/,
    );
  refused(
    () => trustedUrl("http://127.0.0.1:9/v1/token", STS, google),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /names "http:\/\/127\.0\.0\.1:9" as .* \(http only with CRED_AUTH_EMULATOR_HOST set\): /,
  );
  refused(
    () =>
      trustedUrl(
        "https://evil.example/x",
        { service: "cloudresourcemanager", field: "cloud_resource_manager_url" },
        google,
      ),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^The credentials file names "https:\/\/evil\.example" as its cloud_resource_manager_url, not Google's Cloud Resource Manager \(cloudresourcemanager\.googleapis\.com\): no token goes there/,
  );
  for (const [service, api] of [
    ["oauth2", "Google's token endpoint"],
    ["iamcredentials", "Google's IAM Credentials API"],
  ] as const)
    refused(
      () => trustedUrl("https://evil.example/x", { service, field: "f" }, google),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      new RegExp(api),
    );
  for (const [url, service] of [
    ["https://www.googleapis.com/v1/token", "sts"],
    ["https://accounts.google.com/v1/projects/-/serviceAccounts/a@b.c:generateAccessToken", "iamcredentials"],
  ] as const)
    refused(() => trustedUrl(url, { service, field: "f" }, google), ERROR_CODES.UNSAFE_TOKEN_URL, /names "https:\/\//);
  for (const url of ["http://10.0.0.1:9/t", "https://127.0.0.1:9/t"])
    assert.throws(
      () => trustedUrl(url, STS, google),
      (error: Error) => !error.message.includes("http only"),
      `${url}: only loopback over plain http gets the hint`,
    );
  refused(
    () => trustedUrl("not a url", STS, google),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^Credentials file "\/x\/wif\.json" has a token_url that is not a URL; write it again\.$/,
  );
  refused(
    () => trustedUrl(`https://${"a".repeat(300)}.example/x`, STS, google),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /names "https:\/\/a{92}" as/,
  );
});

test("a URL that receives only the file's own secret may be loopback http without the emulator; nothing else more", () => {
  const google = trustedUniverse({});
  assert.equal(trustedUrl("http://127.0.0.1:9/token", OAUTH, google), "http://127.0.0.1:9/token");
  assert.equal(trustedUrl("http://localhost:9/token", OAUTH, google), "http://localhost:9/token");
  for (const url of ["http://10.0.0.1/token", "https://token.example.com/token", "http://evil.example/token"])
    refused(() => trustedUrl(url, OAUTH, google), ERROR_CODES.UNSAFE_TOKEN_URL, /as its token_uri/);
});

test("the file's universe must be the trusted one: both named, and how to trust the file's", () => {
  const google = trustedUniverse({});
  checkFileUniverse(undefined, google);
  checkFileUniverse("googleapis.com", google, "/x/a.json");
  refused(
    () => checkFileUniverse("attacker.example", google, "/x/a.json"),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /^Credentials file "\/x\/a\.json" is for the universe "attacker\.example", but cred-auth trusts "googleapis\.com" \(the default\); to trust "attacker\.example", set GOOGLE_CLOUD_UNIVERSE_DOMAIN=attacker\.example \(or pass universeDomain: "attacker\.example"\)\.$/,
  );
  const tpc = trustedUniverse({ [UNIVERSE_ENV]: "tpc.example" });
  checkFileUniverse("tpc.example", tpc);
  refused(
    () => checkFileUniverse(undefined, tpc),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /^The credentials file is for the universe "googleapis\.com", but cred-auth trusts "tpc\.example" \(GOOGLE_CLOUD_UNIVERSE_DOMAIN\); to trust/,
  );
  refused(
    () => checkFileUniverse("googleapis.com", trustedUniverse({}, "opt.example")),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /trusts "opt\.example" \(the universeDomain option\)/,
  );
  refused(
    () => checkFileUniverse(`${"u".repeat(150)}.example`, google),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /universe "u{100}", but/,
  );
  // A universe that is no domain is named (escaped), with no advice to trust it.
  refused(
    () => checkFileUniverse("\u001b]0;pwned\u0007", google),
    ERROR_CODES.UNTRUSTED_UNIVERSE,
    /^The credentials file is for the universe "\\u001b\]0;pwned\\u0007", but cred-auth trusts "googleapis\.com" \(the default\)\.$/,
  );
});

test("the names a local server of ours is reached by: loopback, but only localhost, 127.0.0.1 and [::1]", () => {
  for (const host of ["localhost", "127.0.0.1", "[::1]"]) assert.ok(isLoopbackName(host), host);
  for (const host of ["127.0.0.2", "::1", "LOCALHOST.", "127.0.0.1.evil.example", "0.0.0.0", ""])
    assert.ok(!isLoopbackName(host), host);
});

test("the emulator is exactly CRED_AUTH_EMULATOR_HOST's host and port over plain http; no other loopback URL", () => {
  const env = { CRED_AUTH_EMULATOR_HOST: " 127.0.0.1:9099 " };
  assert.ok(isEmulatorUrl(new URL("http://127.0.0.1:9099/token"), env));
  assert.ok(isEmulatorUrl(new URL("http://127.0.0.1:9099"), env));
  for (const url of [
    "http://127.0.0.1:9100/token",
    "http://localhost:9099/token",
    "http://127.0.0.2:9099/token",
    "https://127.0.0.1:9099/token",
    "http://user@127.0.0.1:9099/token",
    "http://:pw@127.0.0.1:9099/token",
  ])
    assert.ok(!isEmulatorUrl(new URL(url), env), url);
  assert.ok(!isEmulatorUrl(new URL("http://127.0.0.1:9099/token"), {}), "no variable, no emulator");
  assert.ok(!isEmulatorUrl(new URL("http://127.0.0.1:9099/token"), { CRED_AUTH_EMULATOR_HOST: " " }));
  assert.ok(!isEmulatorUrl(new URL("http://example.com:9099/"), { CRED_AUTH_EMULATOR_HOST: "example.com:9099" }));
  assert.ok(!isEmulatorUrl(new URL("http://127.0.0.1/"), { CRED_AUTH_EMULATOR_HOST: "127.0.0.1" }), "unusable");
  assert.ok(isEmulatorUrl(new URL("http://[::1]:5/x"), { CRED_AUTH_EMULATOR_HOST: "[::1]:5" }));
  const saved = process.env.CRED_AUTH_EMULATOR_HOST;
  process.env.CRED_AUTH_EMULATOR_HOST = "localhost:7";
  try {
    assert.ok(isEmulatorUrl(new URL("http://localhost:7/")), "process.env by default");
  } finally {
    if (saved === undefined) delete process.env.CRED_AUTH_EMULATOR_HOST;
    else process.env.CRED_AUTH_EMULATOR_HOST = saved;
  }
});

test("loopback hosts, and the emulator's host:port", () => {
  for (const host of ["localhost", "[::1]", "127.0.0.1", "127.1.2.3", "127.0.0.10", "127.255.255.254"])
    assert.ok(isLoopbackHostname(host), host);
  for (const host of ["127.0.0.1.evil.example", "evil127.0.0.1", "128.0.0.1", "::1", "0.0.0.0", "127.0.0"])
    assert.ok(!isLoopbackHostname(host), host);
  assert.equal(emulatorBaseUrl("127.0.0.1:9099"), "http://127.0.0.1:9099");
  assert.equal(emulatorBaseUrl("localhost:1"), "http://localhost:1");
  assert.equal(emulatorBaseUrl("[::1]:2"), "http://[::1]:2");
  for (const [hostPort, message] of [
    [
      "127.0.0.1",
      /must be a loopback host:port such as 127\.0\.0\.1:9099, not "127\.0\.0\.1"; the emulator never runs elsewhere\.$/,
    ],
    ["evil.example:9", /must be a loopback host:port/],
    ["127.0.0.1:9/x", /must be a loopback host:port/],
    [
      "127.0.0.1:99999",
      /^CRED_AUTH_EMULATOR_HOST="127\.0\.0\.1:99999" is not a host:port; use for example 127\.0\.0\.1:9099\.$/,
    ],
  ] as const)
    assert.throws(
      () => emulatorBaseUrl(hostPort),
      (error: unknown) =>
        error instanceof CredCredentialsError &&
        error.code === ERROR_CODES.INVALID_OPTION &&
        message.test(error.message),
      hostPort,
    );
});

test("googleConsoleLink: a refusal's link is shown only when it is an https page of Google's console", () => {
  const enable = "https://console.developers.google.com/apis/api/iamcredentials.googleapis.com/overview?project=42";
  assert.equal(googleConsoleLink(enable), enable);
  assert.equal(
    googleConsoleLink("https://console.cloud.google.com/iam-admin/iam?project=p"),
    "https://console.cloud.google.com/iam-admin/iam?project=p",
  );
  for (const bad of [
    undefined,
    "",
    "not a url",
    "http://console.developers.google.com/x",
    "https://console.developers.google.com.evil.example/x",
    "https://evil.example/console.developers.google.com",
    "https://user@console.cloud.google.com/x",
    "https://u:p@console.cloud.google.com/x",
    "https://console.cloud.google.com:8443/x",
    "javascript:alert(1)",
  ])
    assert.equal(googleConsoleLink(bad), undefined, String(bad));
});

test("an AWS source's IMDS URLs: AWS's instance metadata service only (IPv4, IPv6); with the emulator, its IMDS", () => {
  const field = "credential_source.region_url";
  const zone = "/latest/meta-data/placement/availability-zone";
  for (const raw of [
    `http://169.254.169.254${zone}`,
    `http://169.254.169.254:80${zone}`,
    `http://[fd00:ec2::254]${zone}`,
  ])
    assert.equal(trustedImdsUrl(raw, field, "/x/aws.json", trustedUniverse({})), raw.replace(":80", ""));
  assert.equal(
    trustedImdsUrl(`http://169.254.169.254${zone}?x=1`, field, "/x/aws.json", trustedUniverse(EMU)),
    `http://127.0.0.1:9099/aws-imds${zone}?x=1`,
    "the emulator plays IMDS: nothing leaves this machine",
  );
  assert.equal(
    trustedImdsUrl(`http://127.0.0.1:9099/aws-imds${zone}`, field, undefined, trustedUniverse(EMU)),
    `http://127.0.0.1:9099/aws-imds${zone}`,
  );
  for (const raw of [
    `https://169.254.169.254${zone}`,
    `http://169.254.169.254:8080${zone}`,
    `http://user:pw@169.254.169.254${zone}`,
    `http://169.254.169.254.evil.example${zone}`,
    `http://169.254.169.253${zone}`,
    `http://metadata.google.internal${zone}`,
    `http://127.0.0.1:9099/aws-imds${zone}`,
    "file:///etc/passwd",
  ])
    refused(
      () => trustedImdsUrl(raw, field, "/x/aws.json", trustedUniverse({})),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      /^Credentials file "\/x\/aws\.json" has a credential_source\.region_url at ".*", which is not AWS's instance metadata service \(http:\/\/169\.254\.169\.254 or http:\/\/\[fd00:ec2::254\]\); cred-auth asks no other host for AWS keys\.$/,
    );
  // With the emulator, only its own IMDS stand-in: its host and port, under its IMDS path.
  for (const raw of [
    `http://127.0.0.1:9098/aws-imds${zone}`,
    `http://localhost:9099/aws-imds${zone}`,
    `http://127.0.0.1:9099${zone}`,
    `http://127.0.0.1:9099/token`,
    `http://user:pw@127.0.0.1:9099/aws-imds${zone}`,
  ])
    refused(
      () => trustedImdsUrl(raw, field, "/x/aws.json", trustedUniverse(EMU)),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      /which is not AWS's instance metadata service/,
    );
  refused(
    () => trustedImdsUrl("not a url", "credential_source.url", undefined, trustedUniverse({})),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^The credentials file has a credential_source\.url that is not a URL; write it again\.$/,
  );
});

test("a URL a file names with a user or password in it is refused, whatever its host; others pass", () => {
  for (const raw of ["http://u:pw@127.0.0.1:5/t", "https://u@subject.example/t", "https://:pw@subject.example/t"])
    refused(
      () => refuseUrlCredentials(raw, "credential_source.url", "/x/wif.json"),
      ERROR_CODES.UNSAFE_TOKEN_URL,
      /^Credentials file "\/x\/wif\.json" has a credential_source\.url with a user name or password in it \(at "https?:\/\/[^"@]+"\); cred-auth sends none: give the secret in credential_source\.headers instead\.$/,
    );
  refused(
    () => refuseUrlCredentials("http://u:pw@h/", "credential_source.url", undefined),
    ERROR_CODES.UNSAFE_TOKEN_URL,
    /^The credentials file has a credential_source\.url with/,
  );
  for (const raw of ["https://subject.example/t?user=x", "http://127.0.0.1:5/t", "not a url", "http://h/a@b"])
    refuseUrlCredentials(raw, "credential_source.url", "/x/wif.json");
});
