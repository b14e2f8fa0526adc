// The packages built into dist/vendor/ (scripts/build.mjs, vendorPackages) stay updatable and
// accounted for: pinned as devDependencies in the lock file, named with their versions in the
// CHANGELOG's newest section, their licences in dist/THIRD_PARTY_NOTICES.md, and covered by the
// audit of what ships (scripts/audit.mjs).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

interface Advisory {
  name: string;
}
/** scripts/audit.mjs (plain JavaScript, so imported by a path TypeScript does not follow). */
const audit = "../../scripts/audit.mjs";
const { shippedAdvisories } = (await import(audit)) as {
  shippedAdvisories(report: unknown, lock: unknown, notices: string): { shipped: Advisory[]; tools: Advisory[] };
};

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), "utf8");
const pkg = JSON.parse(read("package.json")) as Record<string, Record<string, string>>;
const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { version: string }> };
const notices = read("dist/THIRD_PARTY_NOTICES.md");

/** The packages whose code is in dist/vendor/ (one file per import name: react.js, react/jsx-runtime.js). */
function vendoredPackages(): string[] {
  const files = readdirSync(new URL("dist/vendor/", ROOT), { recursive: true }).map(String);
  const names = files
    .filter((f) => /\.m?js$/.test(f))
    .map((f) =>
      f
        .replace(/\.m?js$/, "")
        .split("\\")
        .join("/"),
    );
  return [
    ...new Set(
      names.map((n) =>
        n
          .split("/")
          .slice(0, n.startsWith("@") ? 2 : 1)
          .join("/"),
      ),
    ),
  ].sort();
}

const lockVersion = (name: string) => lock.packages[`node_modules/${name}`]?.version;

test("the built-in packages: devDependencies pinned in the lock file, not installed for users", () => {
  const vendored = vendoredPackages();
  assert.deepEqual(vendored, ["conf", "ink", "ink-text-input", "open", "react"]);
  for (const name of vendored) {
    assert.ok(pkg.devDependencies?.[name], `${name} is a devDependency`);
    assert.equal(pkg.dependencies?.[name], undefined, `${name} is not installed for users`);
    assert.ok(lockVersion(name), `${name} is pinned in package-lock.json`);
  }
});

test("the CHANGELOG's newest section names the built-in versions, as the lock file pins them", () => {
  const newest = read("CHANGELOG.md").split(/^## /m)[1] ?? "";
  const line = /^- Built in: (.*)$/m.exec(newest)?.[1];
  assert.ok(line, "a `- Built in: NAME VERSION, ...` line in the newest section");
  const named = Object.fromEntries(
    [...line.matchAll(/([@\w./-]+) (\d+\.\d+\.\d+\S*?)(?=[,;.]|\s|$)/g)].map((m) => [m[1], m[2]]),
  );
  const pinned = Object.fromEntries(vendoredPackages().map((name) => [name, lockVersion(name)]));
  assert.deepEqual(named, pinned);
});

test("dist/THIRD_PARTY_NOTICES.md carries each built-in package at its pinned version, with a licence text", () => {
  for (const name of vendoredPackages()) {
    const section = notices.split(/^## /m).find((s) => s.startsWith(`${name}@${lockVersion(name)} `));
    assert.ok(section, `${name}@${lockVersion(name)} has a notice`);
    assert.match(section, /```\n[\s\S]*(Permission|Copyright|License)[\s\S]*\n```/i, `${name}'s licence text`);
  }
});

test("the audit of what ships counts an advisory for a built-in package, not one for a tool of the repository", () => {
  const advisory = (name: string) => ({
    name,
    severity: "moderate",
    range: "*",
    nodes: [`node_modules/${name}`],
    via: [{ title: `a flaw in ${name}`, url: "https://github.com/advisories/GHSA-test" }],
  });
  const report = {
    vulnerabilities: Object.fromEntries(["es-toolkit", "typedoc", "node-fetch"].map((n) => [n, advisory(n)])),
  };
  const { shipped, tools } = shippedAdvisories(report, lock, notices);
  assert.deepEqual(shipped.map((v) => v.name).sort(), ["es-toolkit", "node-fetch"]);
  assert.deepEqual(
    tools.map((v) => v.name),
    ["typedoc"],
  );
});
