// Every error class cred-auth throws can be imported by name (`import { CredentialsFileError } from
// "cred-auth"`), is listed in README.md's API table, and is described in docs/troubleshooting.md's
// table of classes with the base class it really extends. docs/troubleshooting.md's table of codes
// names only those classes.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as credAuth from "cred-auth";

const root = fileURLToPath(new URL("../../", import.meta.url));
const page = (path: string): string => readFileSync(join(root, path), "utf8");

type ErrorClass = abstract new (...args: never[]) => Error;

function isErrorClass(value: unknown): value is ErrorClass {
  return typeof value === "function" && (value === Error || value.prototype instanceof Error);
}

/** The error classes among a module's exports, by exported name. */
function errorClasses(module: object): Map<string, ErrorClass> {
  return new Map(Object.entries(module).filter((entry): entry is [string, ErrorClass] => isErrorClass(entry[1])));
}

const named = errorClasses(credAuth);
const inExceptions = errorClasses(credAuth.exceptions);

/** `| `A` | `B` | ...` rows of the section under `heading`: first cell -> second cell. */
function tableRows(text: string, heading: string): Map<string, string> {
  const start = text.indexOf(heading);
  assert.ok(start >= 0, `no "${heading}" in the page`);
  const section = text.slice(start + heading.length).split(/\n#{1,3} /)[0] ?? "";
  const rows = [...section.matchAll(/^\| `(\w+)` \| ([^|]*) \|/gm)];
  return new Map(rows.map((m) => [m[1] ?? "", (m[2] ?? "").trim()]));
}

test("every class of `exceptions` is exported by name too, the same class", () => {
  assert.ok(inExceptions.size >= 5, `only ${inExceptions.size} classes in exceptions`);
  for (const [name, value] of inExceptions) assert.equal(named.get(name), value, `${name} is not exported by name`);
});

test("every exported error class derives from CredAuthError, and has its own name", () => {
  for (const [name, value] of named) {
    assert.ok(value === credAuth.CredAuthError || value.prototype instanceof credAuth.CredAuthError, name);
    assert.equal(value.prototype.constructor.name, name);
  }
});

test("README.md's API table lists every exported error class", () => {
  const readme = page("README.md");
  const api = readme.slice(readme.indexOf("## API"), readme.indexOf("\n## ", readme.indexOf("## API") + 1));
  const missing = [...named.keys()].filter((name) => !new RegExp(`^\\| \`${name}\``, "m").test(api));
  assert.deepEqual(missing, [], "error classes missing from README.md's API table");
});

test("docs/troubleshooting.md names every error class with its real base class, and no other", () => {
  const rows = tableRows(page("docs/troubleshooting.md"), "# Troubleshooting");
  const expected = new Map(
    [...named].map(([name, value]) => [name, `\`${Object.getPrototypeOf(value.prototype).constructor.name}\``]),
  );
  assert.deepEqual(new Map([...rows].sort()), new Map([...expected].sort()));
});

test("docs/troubleshooting.md's table of codes names only classes that exist", () => {
  const rows = tableRows(page("docs/troubleshooting.md"), "## Error codes");
  const known = new Set([...named.keys(), "UsageError"]);
  const unknown = [...rows.values()]
    .flatMap((cell) => [...cell.matchAll(/`(\w+)`/g)].map((m) => m[1] ?? ""))
    .filter((name) => !known.has(name));
  assert.ok(rows.size >= 30, `only ${rows.size} codes found`);
  assert.deepEqual(unknown, []);
});

test("the table reader reads first and second cells of its section only", () => {
  const text = "# T\n| `A` | `B` | x |\n| --- |\n| `C` | none | y |\n## Next\n| `D` | `E` |\n";
  assert.deepEqual(
    [...tableRows(text, "# T")],
    [
      ["A", "`B`"],
      ["C", "none"],
    ],
  );
});
