// Adding an ADC type is one folder and one line of the kinds table (docs/architecture.md, "Adding an
// ADC type"): a toy kind written into a copy of src/ compiles, and print-token's and status's functions
// read its files through the table; the same kind without one capability, or under another type's key,
// does not compile.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { tempDir } from "../support/files.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** The toy type's folder: its shape and its kind, every capability answered. */
const TOY_FILE = `// \`toy_token\`: a file that holds an access token itself (a toy kind for a test).
import { stringFields } from "../../../formats/credentials-file.js";

export interface ToyFile {
  type: "toy_token";
  accessToken: string;
}

export function parseToyFile(json: Record<string, unknown>, path: string): ToyFile {
  return { type: "toy_token", ...stringFields(json, path, { accessToken: "access_token" }, ["accessToken"]) };
}
`;

const TOY_KIND = `// \`toy_token\`: its token is the one the file holds.
import type { Kind } from "../kind.js";
import { type ToyFile, parseToyFile } from "./file.js";

const nothing = () => Promise.reject(new Error("a toy token has no such thing"));

export const toyKind: Kind<ToyFile> = {
  parse: parseToyFile,
  keepsGrantedScopes: false,
  ownIdToken: false,
  accessToken: async (file) => ({ access_token: file.accessToken, expiry_date: Date.now() + 3_600_000, token_type: "Bearer" }),
  idToken: nothing,
  signedInAccount: () => undefined,
  account: () => "the toy",
  actsAs: () => undefined,
  describe: () => ({ account: "the toy", accessToken: { state: "none" } }),
  revocation: () => ({ notRevocable: "holds a toy token" }),
  cachedTokens: () => ({ keys: [], owners: [] }),
  notReplaceable: () => "a toy token",
  client: nothing,
  clientIdToken: nothing,
};
`;

/** A copy of src/ with `kind` in kinds/toy/ and `line` in the table; tsc's exit status and words. */
function build(dir: string, kind: string, line: string): { status: number | null; output: string } {
  cpSync(join(ROOT, "src"), join(dir, "src"), { recursive: true });
  // Only what print-token's function reaches, and the toy: tsc follows the imports.
  const { include: _all, ...config } = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8"));
  const include = ["src/credentials/tokens/file-token.ts", "src/credentials/kinds/toy/index.ts"];
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ ...config, include }));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  const kinds = join(dir, "src", "credentials", "kinds");
  mkdirSync(join(kinds, "toy"));
  writeFileSync(join(kinds, "toy", "file.ts"), TOY_FILE);
  writeFileSync(join(kinds, "toy", "index.ts"), kind);
  const table = join(kinds, "table.ts");
  const text = readFileSync(table, "utf8");
  const entry = "  external_account: () => federatedKind,\n";
  assert.ok(text.includes(entry), "the table lists its kinds one line each");
  writeFileSync(table, `import { toyKind } from "./toy/index.js";\n${text.replace(entry, `${entry}${line}\n`)}`);
  const run = spawnSync(process.execPath, [TSC, "-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test("a sixth ADC type: one folder and one table line, and the table reads its files", (t) => {
  const dir = tempDir(t, "cred-auth-toy-");
  const built = build(dir, TOY_KIND, "  toy_token: () => toyKind,");
  assert.equal(built.status, 0, built.output);
  const path = join(dir, "toy.json");
  writeFileSync(path, JSON.stringify({ type: "toy_token", access_token: "ya29.the-toy-token" }));
  const script = `
    const { accessTokenForFile, describeCredentialsFile } = require(${JSON.stringify(join(dir, "dist", "credentials", "tokens", "file-token.js"))});
    const { readAdcFile } = require(${JSON.stringify(join(dir, "dist", "credentials", "kinds", "table.js"))});
    (async () => {
      const token = await accessTokenForFile(process.argv[1], { env: { CRED_AUTH_TOKEN_CACHE: "off" } });
      let refused;
      try { readAdcFile(process.argv[2]); } catch (error) { refused = error.message; }
      console.log(JSON.stringify({ token, file: describeCredentialsFile(process.argv[1]), refused }));
    })();
  `;
  const other = join(dir, "other.json");
  writeFileSync(other, JSON.stringify({ type: "toy_token" }));
  const run = spawnSync(process.execPath, ["-e", script, path, other], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const { token, file, refused } = JSON.parse(run.stdout);
  assert.equal(token.accessToken, "ya29.the-toy-token");
  assert.equal(token.credentialsType, "toy_token");
  assert.deepEqual(file, { credentialsType: "toy_token" });
  // The toy's own parser judges its files: one without its token is refused by it, naming the field.
  assert.match(refused, /is missing the required field "access_token"/);
});

test("a kind without a capability, or under another type's key, does not compile", (t) => {
  const missing = build(
    tempDir(t, "cred-auth-toy-"),
    TOY_KIND.replace(/ {2}describe: .*\n/, ""),
    "  toy_token: () => toyKind,",
  );
  assert.notEqual(missing.status, 0);
  assert.match(missing.output, /Property 'describe' is missing/);
  const elsewhere = build(tempDir(t, "cred-auth-toy-"), TOY_KIND, "  other_token: () => toyKind,");
  assert.notEqual(elsewhere.status, 0);
  assert.match(elsewhere.output, /'"toy_token"' is not assignable to type '"other_token"'/);
});
