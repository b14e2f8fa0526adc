// Preloaded into CLI children by the reliability tests (`node --require`): a token request
// attempt times out after CRED_AUTH_TEST_TOKEN_TIMEOUT_MS instead of 20 s, so a slow token
// server can be seen timing out within a bounded test. Test-only; not part of the package.
const ms = Number(process.env.CRED_AUTH_TEST_TOKEN_TIMEOUT_MS);
if (Number.isFinite(ms) && ms > 0) require("../../dist/google/token-requests.js").DEFAULT_TOKEN_TIMEOUT_MS = ms;
