// Lookups by a string from a file, a server or a user find own properties only (src/trust/own.ts):
// read with TypeScript's checker, no module of src/ reads a table (a module-level constant) by a
// string key but through own() or behind Object.hasOwn; and the files that met Object.prototype
// before (a credentials or client-secret file of type "constructor") get their clear line.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { runCli, sandbox } from "../cli/support.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function lookups(extra: readonly string[] = []): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, "\n")),
    },
  );
  assert.ok(config);
  const program = ts.createProgram([...config.fileNames, ...extra], config.options);
  const checker = program.getTypeChecker();
  const wide = (t: ts.Type): boolean => (t.flags & ts.TypeFlags.String) !== 0 || (t.isUnion() && t.types.some(wide));
  /** A constant declared at a module's top level: a table. */
  const isTable = (node: ts.Expression): boolean => {
    const decl = ts.isIdentifier(node) ? checker.getSymbolAtLocation(node)?.declarations?.[0] : undefined;
    return (
      decl !== undefined &&
      ts.isVariableDeclaration(decl) &&
      ts.isVariableStatement(decl.parent.parent) &&
      ts.isSourceFile(decl.parent.parent.parent) &&
      (decl.parent.flags & ts.NodeFlags.Const) !== 0
    );
  };
  /** `Object.hasOwn(TABLE, ...) ? TABLE[key] : ...`. */
  const guarded = (node: ts.ElementAccessExpression): boolean => {
    for (let at: ts.Node = node; at.parent; at = at.parent)
      if (ts.isConditionalExpression(at.parent) && at.parent.whenTrue === at)
        return at.parent.condition.getText().startsWith(`Object.hasOwn(${node.expression.getText()},`);
    return false;
  };
  const found: string[] = [];
  for (const file of program.getSourceFiles()) {
    const rel = relative(ROOT, file.fileName);
    if (!(rel.startsWith("src/") || extra.includes(file.fileName)) || rel.startsWith("src/emulator/")) continue;
    const visit = (node: ts.Node): void => {
      if (
        ts.isElementAccessExpression(node) &&
        !(
          ts.isBinaryExpression(node.parent) &&
          node.parent.left === node &&
          node.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
        ) &&
        wide(checker.getTypeAtLocation(node.argumentExpression)) &&
        isTable(node.expression) &&
        !guarded(node)
      )
        found.push(`${rel}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText()}`);
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

test("no table of src/ is read by a string key but through own() or behind Object.hasOwn", () => {
  assert.deepEqual(lookups(), []);
});

test("the scan catches a table read by a string, and passes the guarded read", () => {
  const dir = mkdtempSync(join(ROOT, ".tmp-own-probe-"));
  const probe = join(dir, "probe.ts");
  writeFileSync(
    probe,
    [
      "const WORDS: Record<string, string> = { a: 'b' };",
      "export const bare = (key: string) => WORDS[key] ?? key;",
      "export const safe = (key: string) => (Object.hasOwn(WORDS, key) ? WORDS[key] : undefined);",
      "export const set = (key: string) => { WORDS[key] = 'c'; };",
      "",
    ].join("\n"),
  );
  try {
    assert.deepEqual(
      lookups([probe]).filter((f) => f.includes(".tmp-own-probe-")),
      [`${relative(ROOT, probe)}:2 WORDS[key]`],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('type "constructor": a client-secret file and a credentials file each get their clear line', async () => {
  const box = sandbox();
  const file = join(box.dir, "constructor.json");
  writeFileSync(file, JSON.stringify({ type: "constructor", client_id: "x", client_secret: "y" }));
  const login = await runCli(["login", join(box.dir, "out.json"), "--client-secret-file", file], box.env);
  assert.equal(login.code, 1);
  assert.doesNotMatch(login.stderr, /function|native code|GOOGLE_APPLICATION_CREDENTIALS/);
  assert.match(login.stderr, /is not a Google client-secret JSON file/);
  const token = await runCli(["print-token", file], box.env);
  assert.equal(token.code, 1);
  assert.doesNotMatch(token.stderr, /function|native code/);
  assert.match(token.stderr, /"constructor"/);
});

test("scopes named after Object.prototype's members are shown and compared as themselves", async () => {
  const { canonicalScope } = await import("../../dist/oauth/scopes.js");
  const { describeScopes } = await import("../../dist/ui/words.js");
  for (const name of ["constructor", "toString", "__proto__"]) {
    assert.equal(canonicalScope(name), name);
    assert.deepEqual(describeScopes([name]), [name]);
  }
});
