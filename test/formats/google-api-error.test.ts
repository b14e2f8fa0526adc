// Google's API error reply (src/formats/google-api-error.ts): its status word, message and the
// ErrorInfo's reason and string metadata, each read only when it has the right type.
import assert from "node:assert/strict";
import { test } from "node:test";
import { consumerProject, parseGoogleApiError } from "../../dist/formats/google-api-error.js";

const INFO = "type.googleapis.com/google.rpc.ErrorInfo";

test("the status, message, ErrorInfo reason and string metadata of Google's reply", () => {
  const reply = parseGoogleApiError({
    error: {
      code: 403,
      status: "PERMISSION_DENIED",
      message: "IAM Service Account Credentials API has not been used in project 42 before",
      details: [
        { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", locale: "en-US", message: "x" },
        {
          "@type": INFO,
          reason: "SERVICE_DISABLED",
          domain: "googleapis.com",
          metadata: { consumer: "projects/42", n: 7 },
        },
      ],
    },
  });
  assert.deepEqual(reply, {
    status: "PERMISSION_DENIED",
    message: "IAM Service Account Credentials API has not been used in project 42 before",
    reason: "SERVICE_DISABLED",
    metadata: { consumer: "projects/42" },
  });
  assert.equal(consumerProject(reply), "42");
});

test("anything else says nothing: not an object, wrong types, odd words, no ErrorInfo", () => {
  for (const body of [undefined, null, "text", [], { error: "x" }, { error: [] }])
    assert.deepEqual(parseGoogleApiError(body), { metadata: {} }, JSON.stringify(body));
  assert.deepEqual(
    parseGoogleApiError({
      error: { status: "lower case", message: 7, details: [{ "@type": INFO, reason: "A B", metadata: [] }] },
    }),
    { metadata: {} },
  );
  assert.deepEqual(parseGoogleApiError({ error: { details: "x" } }), { metadata: {} });
  assert.deepEqual(parseGoogleApiError({ error: { details: [null, 1, { "@type": "other", reason: "R" }] } }), {
    metadata: {},
  });
  assert.equal(parseGoogleApiError({ error: { status: `A${"B".repeat(63)}` } }).status, `A${"B".repeat(63)}`);
  assert.equal(parseGoogleApiError({ error: { status: `A${"B".repeat(64)}` } }).status, undefined);
  for (const consumer of [
    undefined,
    "folders/1",
    "projects/",
    "projects/a/b",
    `projects/${"p".repeat(101)}`,
    "projects/-x",
  ])
    assert.equal(consumerProject({ metadata: consumer === undefined ? {} : { consumer } }), undefined, consumer);
  assert.equal(consumerProject({ metadata: { consumer: "projects/my-project" } }), "my-project");
});
