// Call a Google API through the `googleapis` package with saved user credentials (a file from
// `cred-auth login credentials.json`): list the objects of a Cloud Storage bucket.
//
//   node node_modules/cred-auth/examples/googleapis-call.js credentials.json BUCKET
//
// EXAMPLE_API_URL: another API root, e.g. the cred-auth emulator's http://127.0.0.1:PORT.
import { google } from "googleapis";
import * as credAuth from "cred-auth";

const [credentialsFile, bucket] = process.argv.slice(2);
if (!credentialsFile || !bucket) {
  console.error("usage: node node_modules/cred-auth/examples/googleapis-call.js CREDENTIALS_FILE BUCKET");
  process.exit(2);
}

try {
  const credentials = await credAuth.loadUserCredentials(credentialsFile);
  const apiUrl = process.env.EXAMPLE_API_URL;
  const storage = google.storage({ version: "v1", auth: credentials, ...(apiUrl ? { rootUrl: `${apiUrl}/` } : {}) });

  const { data } = await storage.objects.list({ bucket });
  for (const object of data.items ?? []) console.log(`${object.name}\t${object.size} bytes\t${object.contentType}`);
} catch (error) {
  console.error(`googleapis-call failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
