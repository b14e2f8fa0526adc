// The modules `npm run mutation` mutates, and the tests that must notice a change in each.
// A module's tests are every test file that asserts its behaviour directly; see docs/security.md.
export const MUTATION_MODULES = [
  { name: "pkce", file: "src/oauth/pkce.ts", tests: ["test/oauth/pkce.test.ts", "test/oauth/url.test.ts"] },
  {
    name: "loopback",
    file: "src/oauth/loopback.ts",
    tests: ["test/oauth/loopback.test.ts", "test/oauth/loopback-limits.test.ts", "test/oauth/loopback-bind.test.ts"],
  },
  { name: "paste", file: "src/oauth/paste.ts", tests: ["test/oauth/paste.test.ts"] },
  {
    name: "atomic-write",
    file: "src/util/atomic-write.ts",
    tests: [
      "test/util/atomic-write-behaviour.test.ts",
      "test/util/atomic-write-edges.test.ts",
      "test/util/atomic-write.test.ts",
    ],
  },
  {
    name: "token-cache-store",
    file: "src/token-cache/store.ts",
    tests: ["test/token-cache/store.test.ts"],
  },
  { name: "token-cache-lock", file: "src/token-cache/lock.ts", tests: ["test/token-cache/lock.test.ts"] },
  {
    name: "token-errors",
    file: "src/protocols/token-errors.ts",
    tests: ["test/protocols/token-errors.test.ts"],
  },
  {
    name: "files",
    // A credentials file's JSON, the user's and the key's shapes, reading and writing them.
    file: [
      "src/formats/credentials-file.ts",
      "src/credentials/kinds/file.ts",
      "src/credentials/kinds/user/file.ts",
      "src/credentials/kinds/key/file.ts",
      "src/stores/credentials-file.ts",
    ],
    tests: ["test/formats/credentials-file.test.ts"],
  },
  // The trust boundary (issue 24): the URL policy, the file-trust rule, the redaction owner, external-account parsing.
  {
    name: "url-policy",
    file: "src/trust/urls.ts",
    tests: ["test/trust/urls.test.ts", "test/formats/destinations.test.ts"],
  },
  {
    name: "file-trust",
    file: "src/trust/files.ts",
    tests: [
      "test/trust/files.test.ts",
      "test/util/atomic-write-behaviour.test.ts",
      "test/util/atomic-write-edges.test.ts",
    ],
  },
  { name: "redaction", file: "src/trust/redact.ts", tests: ["test/trust/redact.test.ts"] },
  // The one transport: redirects, proxies, bounds (docs/security.md).
  { name: "transport", file: "src/trust/transport.ts", tests: ["test/trust/transport.test.ts"] },
  {
    name: "external-account",
    file: "src/credentials/kinds/federated/file.ts",
    tests: [
      "test/formats/external-account.test.ts",
      "test/formats/destinations.test.ts",
      "test/formats/cache-keys.test.ts",
    ],
  },
  // Where each file's secrets may go, the keys that keep one configuration's tokens from another's.
  {
    name: "destinations",
    file: "src/formats/destinations.ts",
    tests: ["test/formats/destinations.test.ts"],
  },
  { name: "cache-keys", file: "src/formats/cache-keys.ts", tests: ["test/formats/cache-keys.test.ts"] },
  // The keychain store and its OS adapter (issue 49), against a real Secret Service (gnome-keyring on a private bus).
  {
    name: "keychain-store",
    file: "src/stores/keychain.ts",
    tests: ["test/stores/keychain-store.test.ts", "test/stores/keychain-store-edges.test.ts"],
  },
  {
    name: "keychain-adapter",
    file: "src/os/keychain.ts",
    tests: ["test/stores/keychain-store.test.ts", "test/stores/keychain-adapter.test.ts"],
  },
  // AWS's signing and IMDS: the region and keys from the environment or IMDS, the signed subject token.
  {
    name: "aws",
    file: "src/protocols/aws.ts",
    tests: ["test/protocols/aws-imds.test.ts", "test/protocols/aws.test.ts"],
  },
  // A google-auth-library client's ID token: the kind's own, the metadata server's, remembered per audience.
  {
    name: "id-token-clients",
    file: "src/credentials/tokens/id-token-clients.ts",
    tests: [
      "test/credentials/client-id-tokens.test.ts",
      "test/credentials/id-tokens.test.ts",
      "test/credentials/kinds.test.ts",
    ],
  },
  {
    name: "kind-impersonated",
    file: [
      "src/credentials/kinds/impersonated/file.ts",
      "src/credentials/kinds/impersonated/index.ts",
      "src/credentials/kinds/impersonated/tokens.ts",
      "src/credentials/kinds/impersonated/client.ts",
    ],
    tests: [
      "test/credentials/kind-impersonated.test.ts",
      "test/formats/impersonated-file.test.ts",
      "test/credentials/impersonation.test.ts",
      "test/credentials/kinds.test.ts",
    ],
  },
  {
    name: "kinds-table",
    file: [
      "src/credentials/kinds/table.ts",
      "src/credentials/kinds/kind.ts",
      "src/credentials/kinds/google-credentials.ts",
    ],
    tests: [
      "test/credentials/kinds-table.test.ts",
      "test/credentials/kind-key.test.ts",
      "test/credentials/file-token.test.ts",
      "test/credentials/client-id-tokens.test.ts",
    ],
  },
  {
    name: "kind-key",
    file: [
      "src/credentials/kinds/key/index.ts",
      "src/credentials/kinds/key/tokens.ts",
      "src/credentials/kinds/key/client.ts",
    ],
    tests: [
      "test/credentials/kind-key.test.ts",
      "test/credentials/kind-key-client.test.ts",
      "test/credentials/file-token.test.ts",
      "test/credentials/id-tokens.test.ts",
    ],
  },
  {
    name: "kind-workforce-user",
    // Not test/trust/rotated-write-back.test.ts: its CLI runs in a child process, where no mutant is switched on.
    file: [
      "src/credentials/kinds/workforce-user/file.ts",
      "src/credentials/kinds/workforce-user/index.ts",
      "src/credentials/kinds/workforce-user/tokens.ts",
      "src/credentials/kinds/workforce-user/client.ts",
    ],
    tests: [
      "test/credentials/kind-workforce-user.test.ts",
      "test/credentials/default-external.test.ts",
      "test/formats/cache-keys.test.ts",
    ],
  },
  {
    name: "kind-federated",
    file: [
      "src/credentials/kinds/federated/index.ts",
      "src/credentials/kinds/federated/subject.ts",
      "src/credentials/kinds/federated/tokens.ts",
      "src/credentials/kinds/federated/client.ts",
    ],
    tests: [
      "test/credentials/kind-federated.test.ts",
      "test/protocols/sts.test.ts",
      "test/credentials/default-aws.test.ts",
      "test/credentials/default-external.test.ts",
    ],
  },
];
