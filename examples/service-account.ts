// Load a service account key file and query BigQuery as the service account, in the key's project.
// Prefer keyless auth (ADC on Google Cloud, workload identity federation) where you can: a key
// file is a long-lived secret.
//
//   node node_modules/cred-auth/examples/service-account.js key.json
//
// EXAMPLE_API_URL: another BigQuery endpoint, e.g. the cred-auth emulator's http://127.0.0.1:PORT.
import { BigQuery } from "@google-cloud/bigquery";
import * as credAuth from "cred-auth";

const [keyFile] = process.argv.slice(2);
if (!keyFile) {
  console.error("usage: node node_modules/cred-auth/examples/service-account.js KEY_FILE");
  process.exit(2);
}

try {
  const credentials = await credAuth.loadServiceAccountCredentials(keyFile, [
    "https://www.googleapis.com/auth/bigquery",
  ]);
  console.log(`service account ${credentials.email} in project ${credentials.projectId}`);
  const apiEndpoint = process.env.EXAMPLE_API_URL;
  const bigquery = new BigQuery({
    authClient: credentials,
    projectId: credentials.projectId,
    ...(apiEndpoint ? { apiEndpoint } : {}),
  });

  const [rows] = await bigquery.query("SELECT SESSION_USER() AS user");
  for (const row of rows) console.log(`user=${row.user}`);
} catch (error) {
  console.error(`service-account failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
