// A tool built on cred-auth ("acme-report") signing its users in with ITS OWN OAuth client.
//
// Rules for tool and library authors (docs/oauth-client.md):
// - Pass your own clientId and clientSecret (an OAuth client of type "Desktop app" in your Google
//   Cloud project), so that your users need not create one. Never reuse another app's client.
// - Do not mask your client's identity: users see your app's name on the consent screen, and
//   your requests say who sends them (userAgent below).
// - Enable the APIs your users need in the project that owns the client, and check that each
//   bills the user's project rather than yours.
// - Ask for the narrowest scopes that work, and keep your own cache file, apart from others'.
//
//   ACME_CLIENT_ID=... ACME_CLIENT_SECRET=... GOOGLE_CLOUD_PROJECT=my-project \
//     node node_modules/cred-auth/examples/tool-author-client.js
//
// A desktop app's client secret is not confidential (it ships with the app); this example reads
// it from the environment only so that it can be run with any client.
// EXAMPLE_API_URL: another BigQuery endpoint, e.g. the cred-auth emulator's http://127.0.0.1:PORT.
import { BigQuery } from "@google-cloud/bigquery";
import * as credAuth from "cred-auth";

const TOOL = { name: "acme-report", version: "1.0.0" };
const clientId = process.env.ACME_CLIENT_ID;
const clientSecret = process.env.ACME_CLIENT_SECRET;
if (!clientId || !clientSecret) {
  console.error("Set ACME_CLIENT_ID and ACME_CLIENT_SECRET to the tool's OAuth client.");
  process.exit(2);
}

try {
  const [credentials, credentialsProject] = await credAuth.default(
    ["https://www.googleapis.com/auth/bigquery"], // the narrowest scope that runs a query job
    {
      clientId,
      clientSecret,
      credentialsCache: new credAuth.cache.ReadWriteCredentialsCache({
        dirname: TOOL.name,
        filename: "credentials.json",
      }),
    },
  );
  const projectId = process.env.GOOGLE_CLOUD_PROJECT || credentialsProject;
  if (!projectId) throw new Error("Set GOOGLE_CLOUD_PROJECT to the project that runs the query.");
  const apiEndpoint = process.env.EXAMPLE_API_URL;
  const bigquery = new BigQuery({
    authClient: credentials,
    projectId,
    userAgent: `${TOOL.name}/${TOOL.version}`,
    ...(apiEndpoint ? { apiEndpoint } : {}),
  });

  const [rows] = await bigquery.query("SELECT SESSION_USER() AS user");
  for (const row of rows) console.log(`${TOOL.name}: signed in as ${row.user}`);
} catch (error) {
  console.error(`${TOOL.name} failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
