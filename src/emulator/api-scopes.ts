/**
 * The scopes each faked API method accepts, as Google's discovery documents declare them
 * (`resources.R.methods.M.scopes`), copied for the methods the emulator serves. Sources:
 * googleapis/google-api-nodejs-client `discovery/bigquery-v2.json` at commit 00f381690c35 (no
 * method lists `bigquery.readonly` any more; nor does any discovery document of 2026-08-22, see
 * src/oauth/google-scopes.ts) and `discovery/storage-v1.json` at 05c5ac1df0ac (revision 20230710).
 * To check one against Google's live document:
 * `curl 'https://bigquery.googleapis.com/$discovery/rest?version=v2' | jq .resources.jobs.methods.insert.scopes`.
 */
const scopes = (...names: string[]): readonly string[] => names.map((n) => `https://www.googleapis.com/auth/${n}`);

const BIGQUERY_READ = scopes("bigquery", "cloud-platform", "cloud-platform.read-only");
const STORAGE_READ = scopes(
  "cloud-platform",
  "cloud-platform.read-only",
  "devstorage.full_control",
  "devstorage.read_only",
  "devstorage.read_write",
);

/** A faked method: the scopes it takes, and the RPC name Google's ErrorInfo gives it. */
export interface ApiMethod {
  scopes: readonly string[];
  service: string;
  rpc: string;
}

const bigquery = (rpc: string, methodScopes = BIGQUERY_READ): ApiMethod => ({
  scopes: methodScopes,
  service: "bigquery.googleapis.com",
  rpc: `google.cloud.bigquery.v2.JobService.${rpc}`,
});
const storage = (rpc: string): ApiMethod => ({ scopes: STORAGE_READ, service: "storage.googleapis.com", rpc });

/** By discovery method id. */
export const API_METHODS = {
  "bigquery.jobs.query": bigquery("Query"),
  "bigquery.jobs.getQueryResults": bigquery("GetQueryResults"),
  "bigquery.jobs.get": bigquery("GetJob"),
  // Load and extract jobs read and write Cloud Storage: hence the devstorage scopes, and no read-only one.
  "bigquery.jobs.insert": bigquery(
    "InsertJob",
    scopes("bigquery", "cloud-platform", "devstorage.full_control", "devstorage.read_only", "devstorage.read_write"),
  ),
  "storage.objects.list": storage("storage.objects.list"),
  "storage.objects.get": storage("storage.objects.get"),
} satisfies Record<string, ApiMethod>;
