// The emulator's fake BigQuery answers like the real API and insists on a valid bearer token.
import assert from "node:assert/strict";
import { test } from "node:test";
import { withEmulator } from "../support/emulator.ts";
import { accessToken, CLOUD_PLATFORM } from "./support.ts";

const emulator = await withEmulator();
const BIGQUERY = "https://www.googleapis.com/auth/bigquery";
const project = `${emulator.url}/bigquery/v2/projects/my-project`;

async function call(
  path: string,
  token: string | undefined,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: a JSON reply whose fields the assertions read freely
): Promise<{ status: number; json: any; headers: Headers }> {
  const response = await fetch(`${project}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json(), headers: response.headers };
}

test("jobs.query answers a SELECT of literals like BigQuery", async () => {
  const token = await accessToken(emulator, [BIGQUERY], "bob@example.com");
  const { status, json } = await call("/queries", token, {
    query: "SELECT 17 AS answer, 'hi' greeting, 2.5, TRUE AS ok, NULL AS nothing, SESSION_USER() AS user",
    useLegacySql: false,
  });
  assert.equal(status, 200);
  assert.equal(json.kind, "bigquery#queryResponse");
  assert.equal(json.jobComplete, true);
  assert.equal(json.totalRows, "1");
  assert.deepEqual(json.schema.fields, [
    { name: "answer", type: "INTEGER", mode: "NULLABLE" },
    { name: "greeting", type: "STRING", mode: "NULLABLE" },
    { name: "f2_", type: "FLOAT", mode: "NULLABLE" },
    { name: "ok", type: "BOOLEAN", mode: "NULLABLE" },
    { name: "nothing", type: "INTEGER", mode: "NULLABLE" },
    { name: "user", type: "STRING", mode: "NULLABLE" },
  ]);
  assert.deepEqual(json.rows, [
    { f: [{ v: "17" }, { v: "hi" }, { v: "2.5" }, { v: "true" }, { v: null }, { v: "bob@example.com" }] },
  ]);
  assert.equal(json.jobReference.projectId, "my-project");
  assert.match(json.jobReference.jobId, /^job_[\w-]+$/);
});

test("jobs.insert, jobs.get and jobs.getQueryResults share the job", async () => {
  const token = await accessToken(emulator, [CLOUD_PLATFORM]);
  const inserted = await call("/jobs", token, {
    configuration: { query: { query: "SELECT -3 AS n" } },
    jobReference: { jobId: "my_job_1" },
  });
  assert.equal(inserted.status, 200);
  assert.equal(inserted.json.kind, "bigquery#job");
  assert.equal(inserted.json.status.state, "DONE");
  assert.equal(inserted.json.id, "my-project:US.my_job_1");
  const again = await call("/jobs", token, {
    configuration: { query: { query: "SELECT 1" } },
    jobReference: { jobId: "my_job_1" },
  });
  assert.equal(again.status, 409);
  const got = await call("/jobs/my_job_1", token);
  assert.equal(got.json.configuration.query.query, "SELECT -3 AS n");
  const results = await call("/queries/my_job_1?location=US", token);
  assert.equal(results.status, 200);
  assert.equal(results.json.kind, "bigquery#getQueryResultsResponse");
  assert.deepEqual(results.json.rows, [{ f: [{ v: "-3" }] }]);
  const missing = await call("/queries/nope", token);
  assert.equal(missing.status, 404);
  assert.equal(missing.json.error.errors[0].reason, "notFound");
});

test("a query it cannot answer is a 400 invalidQuery with a position", async () => {
  const token = await accessToken(emulator, [BIGQUERY]);
  for (const [query, message] of [
    ["SELECT answer", /^Unrecognized name: answer at \[1:8\]$/],
    ["SELECT 1 FROM `p.d.t`", /no tables/],
    ["SELECT 1 AS", /^Syntax error: Unexpected end of script$/],
    ["SELECT 1 AS 2", /^Syntax error: Expected an alias but got "2" at \[1:13\]$/],
    ["DROP TABLE t", /^Syntax error: Expected "SELECT" but got "DROP" at \[1:1\]$/],
  ] as const) {
    const { status, json } = await call("/queries", token, { query });
    assert.equal(status, 400, query);
    assert.equal(json.error.status, "INVALID_ARGUMENT");
    assert.equal(json.error.errors[0].reason, "invalidQuery");
    assert.match(json.error.message, message);
  }
  assert.equal((await call("/queries", token, "{not json")).status, 400);
  assert.equal((await call("/queries", token, { query: "SELECT 1", useLegacySql: true })).status, 400);
});

test("a missing, unknown or revoked token is a 401; a token without a BigQuery scope a 403", async () => {
  const missing = await call("/queries", undefined, { query: "SELECT 1" });
  assert.equal(missing.status, 401);
  assert.equal(missing.json.error.status, "UNAUTHENTICATED");
  assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer /);
  const unknown = await call("/queries", "ya29.not-a-token-this-emulator-issued", { query: "SELECT 1" });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.json.error.errors[0].reason, "authError");
  const token = await accessToken(emulator, [BIGQUERY]);
  emulator.revokeAll();
  assert.equal((await call("/queries", token, { query: "SELECT 1" })).status, 401);
  const storageOnly = await accessToken(emulator, ["https://www.googleapis.com/auth/devstorage.read_only"]);
  const forbidden = await call("/queries", storageOnly, { query: "SELECT 1" });
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.json.error.status, "PERMISSION_DENIED");
});
