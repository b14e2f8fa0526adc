// Attacker: an STS that quotes the AWS subject token it was sent, decoded: the signed request
// whole, its Authorization header, its signature, its session token, raw, JSON-escaped and in
// base64. With long-term keys the decoded request alone is enough to rebuild the subject token and
// exchange it, so none of it may reach print-token's error. The "emulator" here is the echoing STS
// itself (CRED_AUTH_EMULATOR_HOST names it), so the AWS file's Google URL goes to it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, sandbox } from "../cli/support.ts";
import { type Recorded, startRecorder } from "./recorder.ts";

const KEYS = {
  AWS_REGION: "eu-west-3",
  AWS_ACCESS_KEY_ID: "AKIAECHOTESTKEY00001",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYECHOTESTKEY",
  AWS_SESSION_TOKEN: "IQoJb3JpZ2luX2VjECHO/session+token==",
};

type Request = { url: string; method: string; headers: { key: string; value: string }[] };
const subjectOf = (recorded: Recorded): string => new URLSearchParams(recorded.body).get("subject_token") ?? "";
const decodedOf = (recorded: Recorded): Request => JSON.parse(decodeURIComponent(subjectOf(recorded))) as Request;
const authorizationOf = (request: Request) => request.headers.find((h) => h.key === "authorization")?.value ?? "";
const signatureOf = (request: Request) => /Signature=([0-9a-f]{64})/.exec(authorizationOf(request))?.[1] ?? "";

/** What each echo quotes of the request it got. */
const ECHOES: Record<string, (recorded: Recorded) => string> = {
  decoded: (r) => decodeURIComponent(subjectOf(r)),
  "decoded-pretty-headers": (r) =>
    decodedOf(r)
      .headers.map((h) => `${h.key}: ${h.value}`)
      .join("\n"),
  authorization: (r) => authorizationOf(decodedOf(r)),
  signature: (r) => `bad signature ${signatureOf(decodedOf(r))}`,
  "decoded-base64": (r) => Buffer.from(decodeURIComponent(subjectOf(r))).toString("base64"),
  "signature-base64": (r) => Buffer.from(authorizationOf(decodedOf(r))).toString("base64"),
};

const sts = await startRecorder((recorded) => {
  const mode = recorded.url.split("/")[1] ?? "";
  const echo = ECHOES[mode] ?? ECHOES.decoded!;
  return { status: 400, body: JSON.stringify({ error: "invalid_request", error_description: echo(recorded) }) };
});

test("a decoded-echo STS: print-token's error holds no part of the signed request, in any encoding", async () => {
  const box = sandbox(undefined, { ...KEYS, CRED_AUTH_EMULATOR_HOST: `127.0.0.1:${sts.port}` });
  for (const mode of Object.keys(ECHOES)) {
    const path = join(box.dir, `${mode}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        type: "external_account",
        audience: "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/aws",
        subject_token_type: "urn:ietf:params:aws:token-type:aws4_request",
        token_url: `https://sts.googleapis.com/${mode}/token`,
        credential_source: {
          environment_id: "aws1",
          regional_cred_verification_url:
            "https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15",
        },
      }),
    );
    const from = sts.requests.length;
    const result = await runCli(["print-token", path], box.env);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /refused the token request: invalid_request: .*<redacted by cred-auth>/, mode);
    const sent = sts.requests[from]!;
    const request = decodedOf(sent);
    const signature = signatureOf(request);
    assert.equal(signature.length, 64, "the request was signed");
    for (const part of [
      signature,
      authorizationOf(request),
      KEYS.AWS_SESSION_TOKEN,
      JSON.stringify(KEYS.AWS_SESSION_TOKEN).slice(1, -1),
      Buffer.from(authorizationOf(request)).toString("base64").slice(4, 60),
      signature.slice(0, 40),
    ])
      assert.ok(!result.stderr.includes(part), `${mode}: ${part} in ${result.stderr}`);
  }
});
