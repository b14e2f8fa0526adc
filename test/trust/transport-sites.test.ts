// The one transport's wall, the part dependency-cruiser cannot see (.dependency-cruiser.cjs's
// "one-transport" rule forbids importing an HTTP client): read with TypeScript's own checker, no
// module of src/ but trust/transport.ts calls the global fetch or loads an HTTP client at run time,
// none calls gaxios or gcp-metadata to send a request, and every google-auth-library client cred-auth
// builds (a class of the library's, or a subclass's super() call) is given the transport:
// `transporterOptions` (or a `transporter`) in the options it is built with. A new request site that
// misses the transport fails here.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TRANSPORT = "src/trust/transport.ts";
/** Modules that open sockets or send HTTP; only the transport loads them (the emulator, a test party, aside). */
const HTTP_CLIENTS =
  /^(node:)?(http|https|http2|net|tls)$|^(node-fetch|undici|axios|got|gaxios|https-proxy-agent|http-proxy-agent|gcp-metadata)(\/|$)/;
/** Who may load one anyway: the loopback receiver serves, devshell speaks a local TCP protocol that is no HTTP. */
const MAY_OPEN_SOCKETS = new Set([TRANSPORT, "src/oauth/loopback.ts", "src/os/devshell.ts"]);
/** gcp-metadata's functions that send nothing. */
const NO_NETWORK = new Set(["getGCPResidency", "detectGCPResidency"]);

function program(extra: readonly string[]): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, "\n")),
    },
  );
  assert.ok(config);
  return ts.createProgram([...config.fileNames, ...extra], config.options);
}

const fromLibrary = (decl: ts.Node | undefined): boolean =>
  decl !== undefined && /\/node_modules\/(google-auth-library|gaxios)\//.test(decl.getSourceFile().fileName);

function nodes(file: ts.SourceFile): ts.Node[] {
  const all: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    all.push(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return all;
}

interface Finding {
  where: string;
  what: string;
}

function scan(extra: readonly string[] = []): { findings: Finding[]; constructions: number } {
  const p = program(extra);
  const checker = p.getTypeChecker();
  const files = p.getSourceFiles().filter((f) => {
    const rel = relative(ROOT, f.fileName);
    return (rel.startsWith("src/") && !rel.startsWith("src/emulator/")) || extra.includes(f.fileName);
  });
  const findings: Finding[] = [];
  let constructions = 0;
  const where = (node: ts.Node) => {
    const file = node.getSourceFile();
    return `${relative(ROOT, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  };
  const declarationOf = (node: ts.Node): ts.Declaration | undefined => {
    let symbol = checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return symbol?.declarations?.[0];
  };
  /** The class a `new` builds, or a `super()` calls, when google-auth-library declared it or one of its bases. */
  const libraryClass = (type: ts.Type): boolean => {
    const seen = new Set<ts.Type>();
    const walk = (t: ts.Type): boolean => {
      if (seen.has(t)) return false;
      seen.add(t);
      if (t.getSymbol()?.declarations?.some(fromLibrary)) return true;
      return (t.isClassOrInterface() ? (checker.getBaseTypes(t) ?? []) : []).some(walk);
    };
    return walk(type);
  };
  /** `arg` carries the transport: a literal with transporterOptions/transporter, a const holding one, or a parameter whose callers pass one. */
  const carriesTransport = (
    arg: ts.Expression | undefined,
    pending: (param: ts.ParameterDeclaration) => boolean,
  ): boolean => {
    if (arg === undefined) return false;
    if (ts.isObjectLiteralExpression(arg))
      return arg.properties.some(
        (prop) => prop.name !== undefined && ["transporterOptions", "transporter"].includes(prop.name.getText()),
      );
    if (ts.isIdentifier(arg)) {
      const decl = declarationOf(arg);
      if (decl && ts.isVariableDeclaration(decl)) return carriesTransport(decl.initializer, pending);
      if (decl && ts.isParameter(decl)) return pending(decl);
    }
    return false;
  };
  /** Every `new` of the class that owns `param`'s constructor passes the transport at that position. */
  const callersPass = (param: ts.ParameterDeclaration): boolean => {
    const ctor = param.parent;
    if (!ts.isConstructorDeclaration(ctor)) return false;
    const cls = ctor.parent;
    const index = ctor.parameters.indexOf(param);
    // By name: a subclass is often handed out through a typed table, which hides the class from the checker.
    const named = cls.name?.text;
    const news = files
      .flatMap(nodes)
      .filter((n): n is ts.NewExpression => ts.isNewExpression(n) && n.expression.getText() === named);
    return news.length > 0 && news.every((n) => carriesTransport(n.arguments?.[index], () => false));
  };

  for (const file of files) {
    const rel = relative(ROOT, file.fileName);
    for (const node of nodes(file)) {
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        const loaded = node.arguments[0];
        const loads =
          (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) &&
          loaded !== undefined &&
          ts.isStringLiteral(loaded) &&
          HTTP_CLIENTS.test(loaded.text);
        if (loads && !MAY_OPEN_SOCKETS.has(rel))
          findings.push({ where: where(node), what: `loads ${(loaded as ts.StringLiteral).text}` });
        const name = ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : ts.isIdentifier(callee)
            ? callee.text
            : "";
        const decl = declarationOf(ts.isPropertyAccessExpression(callee) ? callee.name : callee);
        const declFile = decl?.getSourceFile().fileName ?? "";
        if (name === "fetch" && decl !== undefined && !declFile.startsWith(join(ROOT, "src")) && rel !== TRANSPORT)
          findings.push({ where: where(node), what: "calls the global fetch" });
        const viaTransporter =
          ts.isPropertyAccessExpression(callee) &&
          ts.isPropertyAccessExpression(callee.expression) &&
          callee.expression.name.text === "transporter";
        if (/\/node_modules\/(gaxios|gcp-metadata)\//.test(declFile) && !viaTransporter && !NO_NETWORK.has(name))
          findings.push({
            where: where(node),
            what: `calls ${name} of ${declFile.includes("gaxios") ? "gaxios" : "gcp-metadata"}`,
          });
        if (callee.kind === ts.SyntaxKind.SuperKeyword && libraryClass(checker.getTypeAtLocation(callee))) {
          constructions++;
          if (!carriesTransport(node.arguments[0], callersPass))
            findings.push({
              where: where(node),
              what: "super() of a google-auth-library client without the transport",
            });
        }
      }
      if (ts.isNewExpression(node)) {
        // A class google-auth-library declares (its constructor is the library's), however it was reached.
        if (fromLibrary(checker.getResolvedSignature(node)?.declaration)) {
          constructions++;
          if (!carriesTransport(node.arguments?.[0], () => false))
            findings.push({ where: where(node), what: `new ${node.expression.getText()} without the transport` });
        }
      }
    }
  }
  return { findings, constructions };
}

test("no module but trust/transport.ts sends a request, and every google-auth-library client gets the transport", () => {
  const { findings, constructions } = scan();
  assert.deepEqual(findings, []);
  // user, key, impersonated, federation (and its STS step), workforce user, metadata, platform, ID-token, the sign-in's
  assert.ok(constructions >= 10, `only ${constructions} constructions found: the scan lost its way`);
});

test("the scan catches a new request site: a bare client, a fetch, an HTTP client loaded late", () => {
  // A module of its own under the repository (so google-auth-library resolves), outside src/.
  const dir = mkdtempSync(join(ROOT, ".tmp-transport-probe-"));
  const probe = join(dir, "probe.ts");
  const text = [
    'import type * as Gal from "google-auth-library";',
    "export async function probe(gal: typeof Gal): Promise<Gal.UserRefreshClient> {",
    "  await fetch('https://example.invalid');",
    "  await import('node-fetch');",
    "  return new gal.UserRefreshClient({ clientId: 'a' });",
    "}",
    "",
  ].join("\n");
  writeFileSync(probe, text);
  try {
    const { findings } = scan([probe]);
    const mine = findings.filter((f) => f.where.startsWith(relative(ROOT, probe))).map((f) => f.what);
    assert.deepEqual(mine.sort(), [
      "calls the global fetch",
      "loads node-fetch",
      "new gal.UserRefreshClient without the transport",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
