// Query BigQuery with @google-cloud/bigquery and the credentials cred-auth finds: Application
// Default Credentials when set up, otherwise a sign-in in the browser (cached for next time).
//
//   GOOGLE_CLOUD_PROJECT=my-project node node_modules/cred-auth/examples/bigquery-query.js
//
// GOOGLE_CLOUD_PROJECT: the project that runs (and pays for) the query.
// CRED_AUTH_CLIENT_SECRET_FILE: your OAuth client, when a sign-in at Google is needed (docs/oauth-client.md).
// EXAMPLE_API_URL: another BigQuery endpoint, e.g. the cred-auth emulator's http://127.0.0.1:PORT.
import { BigQuery } from "@google-cloud/bigquery";
import * as credAuth from "cred-auth";

try {
  const [credentials, credentialsProject] = await credAuth.default(["https://www.googleapis.com/auth/bigquery"]);
  const projectId = process.env.GOOGLE_CLOUD_PROJECT || credentialsProject;
  if (!projectId) throw new Error("Set GOOGLE_CLOUD_PROJECT to the project that runs the query.");
  const apiEndpoint = process.env.EXAMPLE_API_URL;
  const bigquery = new BigQuery({ authClient: credentials, projectId, ...(apiEndpoint ? { apiEndpoint } : {}) });

  const [rows] = await bigquery.query("SELECT 17 AS answer, SESSION_USER() AS user");
  for (const row of rows) console.log(`answer=${row.answer} user=${row.user}`);
} catch (error) {
  // Print the message only: a client library's error object can hold the request, token included.
  console.error(`bigquery-query failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
