// List a Cloud Storage bucket and download one object with @google-cloud/storage, signing in
// as yourself. The first run opens a sign-in; later runs reuse the cached credentials.
//
//   node node_modules/cred-auth/examples/storage-list-download.js BUCKET [OBJECT]
//
// At Google the sign-in needs your OAuth client: CRED_AUTH_CLIENT_SECRET_FILE=client_secret.json
// (see docs/oauth-client.md).
// EXAMPLE_API_URL: another Storage endpoint, e.g. the cred-auth emulator's http://127.0.0.1:PORT.
import { Storage } from "@google-cloud/storage";
import * as credAuth from "cred-auth";

const [bucketName, objectName] = process.argv.slice(2);
if (!bucketName) {
  console.error("usage: node node_modules/cred-auth/examples/storage-list-download.js BUCKET [OBJECT]");
  process.exit(2);
}

try {
  const credentials = await credAuth.getUserCredentials(["https://www.googleapis.com/auth/devstorage.read_only"]);
  const apiEndpoint = process.env.EXAMPLE_API_URL;
  const storage = new Storage({
    authClient: credentials,
    // With a custom apiEndpoint the client sends no Authorization header unless told to.
    ...(apiEndpoint ? { apiEndpoint, useAuthWithCustomEndpoint: true } : {}),
  });
  const bucket = storage.bucket(bucketName);

  const [files] = await bucket.getFiles();
  for (const file of files) console.log(`gs://${bucketName}/${file.name} (${file.metadata.size} bytes)`);
  if (objectName) {
    const [contents] = await bucket.file(objectName).download();
    process.stdout.write(contents.toString("utf8"));
  }
} catch (error) {
  console.error(`storage-list-download failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
