// The AWS subject token (src/protocols/aws.ts): a Signature Version 4 signed GetCallerIdentity
// request, checked against google-auth-library's own AwsRequestSigner given the same keys, date and
// headers (the peer signs what it is given; cred-auth also signs x-goog-cloud-target-resource, as
// Python's google.auth.aws does), and serialized as Google's STS reads it.
import assert from "node:assert/strict";
import { mock, test } from "node:test";
import { AwsRequestSigner } from "google-auth-library";
import { awsSecrets, awsSubjectToken, awsSubjectTokenSecrets } from "../../dist/protocols/aws.js";

const AUDIENCE = "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/aws";
const VERIFY = "https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15";
const NOW = new Date("2026-11-25T21:30:05.123Z");
const KEYS = {
  accessKeyId: "ASIAEXAMPLEKEY000001",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  sessionToken: "IQoJb3JpZ2luX2VjEXAMPLE/session+token==",
};

type Serialized = { url: string; method: string; headers: { key: string; value: string }[] };
const parse = (token: string): Serialized => JSON.parse(decodeURIComponent(token));
const header = (request: Serialized, key: string) => request.headers.find((h) => h.key === key)?.value;

/** google-auth-library's signature of the same request, at the same instant. */
async function peerAuthorization(
  keys: typeof KEYS | Omit<typeof KEYS, "sessionToken">,
  region: string,
  verificationUrl = VERIFY,
) {
  mock.timers.enable({ apis: ["Date"], now: NOW });
  try {
    const signer = new AwsRequestSigner(
      async () => ({ ...keys, ...("sessionToken" in keys ? { token: keys.sessionToken } : {}) }),
      region,
    );
    const options = await signer.getRequestOptions({
      url: verificationUrl.replace("{region}", region),
      method: "POST",
      headers: { "x-goog-cloud-target-resource": AUDIENCE },
    });
    return new Headers(options.headers as HeadersInit).get("authorization");
  } finally {
    mock.timers.reset();
  }
}

test("the signed request is google-auth-library's signature of the same request, temporary keys or an IAM user's", async () => {
  const source = { kind: "aws", verificationUrl: VERIFY } as const;
  for (const keys of [KEYS, { accessKeyId: "AKIAEXAMPLEKEY000002", secretAccessKey: KEYS.secretAccessKey }]) {
    const request = parse(
      awsSubjectToken(
        { region: "eu-west-3", keys },
        { verificationUrl: source.verificationUrl, audience: AUDIENCE },
        NOW,
      ),
    );
    assert.equal(request.method, "POST");
    assert.equal(request.url, "https://sts.eu-west-3.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15");
    assert.equal(header(request, "host"), "sts.eu-west-3.amazonaws.com");
    assert.equal(header(request, "x-amz-date"), "20261125T213005Z");
    assert.equal(header(request, "x-goog-cloud-target-resource"), AUDIENCE);
    assert.equal(header(request, "x-amz-security-token"), "sessionToken" in keys ? keys.sessionToken : undefined);
    assert.equal(header(request, "authorization"), await peerAuthorization(keys, "eu-west-3"));
    assert.match(
      header(request, "authorization") ?? "",
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/20261125/eu-west-3/sts/aws4_request, SignedHeaders=host;x-amz-date;${"sessionToken" in keys ? "x-amz-security-token;" : ""}x-goog-cloud-target-resource, Signature=[0-9a-f]{64}$`,
      ),
    );
  }
});

test("a verification URL without {region} (the global endpoint) is signed as written; the secrets to scrub", () => {
  const source = {
    kind: "aws",
    verificationUrl: "https://sts.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15",
  } as const;
  const request = parse(
    awsSubjectToken(
      { region: "us-east-1", keys: KEYS },
      { verificationUrl: source.verificationUrl, audience: AUDIENCE },
      NOW,
    ),
  );
  assert.equal(header(request, "host"), "sts.amazonaws.com");
  assert.match(header(request, "authorization") ?? "", /\/20261125\/us-east-1\/sts\/aws4_request,/);
  assert.ok(!JSON.stringify(request).includes(KEYS.secretAccessKey), "the secret key signs, never travels");
  assert.deepEqual(awsSecrets({ region: "us-east-1", keys: KEYS }), [KEYS.secretAccessKey, KEYS.sessionToken]);
  const { sessionToken: _, ...longTerm } = KEYS;
  assert.deepEqual(awsSecrets({ region: "us-east-1", keys: longTerm }), [KEYS.secretAccessKey], "no session token");
});

test("a FIPS endpoint signs for the sts service; a query already canonical, reserved characters included, is google-auth-library's", async () => {
  // google-auth-library signs the query as written: written canonically (sorted, RFC 3986 upper-case escapes) both agree.
  for (const url of [
    "https://sts-fips.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15",
    "https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Note=%21%27%28%29%2A&Version=2011-06-15",
  ]) {
    const source = { kind: "aws", verificationUrl: url } as const;
    const request = parse(
      awsSubjectToken(
        { region: "us-east-1", keys: KEYS },
        { verificationUrl: source.verificationUrl, audience: AUDIENCE },
        NOW,
      ),
    );
    assert.equal(header(request, "authorization"), await peerAuthorization(KEYS, "us-east-1", url), url);
    assert.match(header(request, "authorization") ?? "", /\/20261125\/us-east-1\/sts\/aws4_request,/, url);
  }
});

test("the query is signed in SigV4's canonical order (AWS sorts it) whatever order the file writes it in", () => {
  const source = (verificationUrl: string) => ({ kind: "aws", verificationUrl }) as const;
  const sign = (url: string) =>
    header(
      parse(
        awsSubjectToken(
          { region: "us-east-2", keys: KEYS },
          { verificationUrl: source(url).verificationUrl, audience: AUDIENCE },
          NOW,
        ),
      ),
      "authorization",
    );
  assert.equal(
    sign("https://sts.{region}.amazonaws.com?Version=2011-06-15&Action=GetCallerIdentity"),
    sign("https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15"),
  );
  assert.equal(
    sign("https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&a=2&a=1"),
    sign("https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&a=1&a=2"),
    "one name twice: sorted by value",
  );
});

test("the decoded parts of a subject token, for redaction: the request, its Authorization, signature and session token", () => {
  const source = { kind: "aws", verificationUrl: VERIFY } as const;
  const token = awsSubjectToken(
    { region: "eu-west-3", keys: KEYS },
    { verificationUrl: source.verificationUrl, audience: AUDIENCE },
    NOW,
  );
  const request = parse(token);
  const authorization = header(request, "authorization") ?? "";
  const signature = /Signature=([0-9a-f]{64})$/.exec(authorization)?.[1];
  assert.ok(signature);
  assert.deepEqual(awsSubjectTokenSecrets(token), [
    decodeURIComponent(token),
    authorization,
    signature,
    KEYS.sessionToken,
  ]);
  const longTerm = { accessKeyId: "AKIAEXAMPLEKEY000002", secretAccessKey: KEYS.secretAccessKey };
  const unsigned = awsSubjectToken(
    { region: "eu-west-3", keys: longTerm },
    { verificationUrl: source.verificationUrl, audience: AUDIENCE },
    NOW,
  );
  assert.equal(awsSubjectTokenSecrets(unsigned).length, 3, "no session token with long-term keys");
  for (const text of ["not%a token", "%7B%7D", "%5B%5D", encodeURIComponent('{"headers":[1,{"key":"authorization"}]}')])
    assert.deepEqual(awsSubjectTokenSecrets(text), text.startsWith("%7B") ? [decodeURIComponent(text)] : [], text);
  assert.deepEqual(
    awsSubjectTokenSecrets(encodeURIComponent('{"headers":[{"key":"authorization","value":"AWS4 no signature"}]}')),
    ['{"headers":[{"key":"authorization","value":"AWS4 no signature"}]}', "AWS4 no signature"],
  );
});
