#!/usr/bin/env node
// `npm audit` over what cred-auth ships: the packages a user installs with it (package-lock.json's
// non-dev entries) and the packages built into dist/vendor/ (devDependencies, listed by name and
// version in dist/THIRD_PARTY_NOTICES.md; scripts/build.mjs). An advisory for any of them fails
// (exit 1); advisories for tools only this repository uses (test runners, linters) are listed, not
// fatal. A registry that does not answer npm's audit request is said loudly; with
// CRED_AUTH_AUDIT_REQUIRED=1 that fails too. Run after a build. .ci/run runs it.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) main();

function main() {
  const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8"));
  const notices = readFileSync(new URL("../dist/THIRD_PARTY_NOTICES.md", import.meta.url), "utf8");
  const r = spawnSync("npm", ["audit", "--json"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    report = { message: (r.stderr || r.stdout).trim().split("\n").at(-1) };
  }
  if (!report.vulnerabilities) {
    const why = report.message ?? report.error?.summary ?? `npm audit exited ${r.status}`;
    process.stdout.write(
      `\n!!! npm audit could not ask the registry (${why}): the shipped packages were NOT checked !!!\n\n`,
    );
    process.exitCode = process.env.CRED_AUTH_AUDIT_REQUIRED === "1" ? 1 : 0;
    return;
  }
  const { shipped, tools } = shippedAdvisories(report, lock, notices);
  for (const v of tools) process.stdout.write(`audit: ${describe(v)} (a tool of this repository only, not shipped)\n`);
  for (const v of shipped) process.stdout.write(`audit: SHIPPED ${describe(v)}\n`);
  const count = shipped.length;
  process.stdout.write(
    `audit: ${count === 0 ? "no advisory" : `${count} advisor${count === 1 ? "y" : "ies"}`} for the ${shippedPaths(lock, notices).size} shipped packages\n`,
  );
  if (count) process.exitCode = 1;
}

/**
 * Splits `npm audit --json`'s vulnerabilities (report version 2) into those that reach a shipped
 * package and those of the repository's own tools.
 */
export function shippedAdvisories(report, lock, notices) {
  const shipped = shippedPaths(lock, notices);
  const all = Object.values(report.vulnerabilities ?? {});
  const reaches = (v) => (v.nodes ?? []).some((node) => shipped.has(node));
  return { shipped: all.filter(reaches), tools: all.filter((v) => !reaches(v)) };
}

/**
 * The lock file's paths (node_modules/...) of what ships: what npm installs for a user (the
 * dependencies, optional ones and the peer google-auth-library, and theirs, as the lock resolves
 * them), and every package whose name and version the notices list as built in.
 */
export function shippedPaths(lock, notices) {
  const packages = lock.packages ?? {};
  const root = packages[""] ?? {};
  const paths = new Set();
  const visit = (from, name) => {
    const path = resolveIn(packages, from, name);
    if (path === undefined || paths.has(path)) return;
    paths.add(path);
    const entry = packages[path];
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies }))
      visit(path, dep);
  };
  for (const name of Object.keys({ ...root.dependencies, ...root.optionalDependencies, ...root.peerDependencies }))
    visit("", name);
  const builtIn = new Set([...notices.matchAll(/^## (\S+@\S+) /gm)].map((m) => m[1]));
  for (const [path, entry] of Object.entries(packages))
    if (path && builtIn.has(`${entry.name ?? path.slice(path.lastIndexOf("node_modules/") + 13)}@${entry.version}`))
      paths.add(path);
  return paths;
}

/** Where npm finds `name` from the package at `from`: its own node_modules, then each one above. */
function resolveIn(packages, from, name) {
  for (let dir = from; ; ) {
    const path = `${dir ? `${dir}/` : ""}node_modules/${name}`;
    if (packages[path]) return path;
    if (!dir) return undefined;
    const up = dir.lastIndexOf("/node_modules/");
    dir = up < 0 ? "" : dir.slice(0, up);
  }
}

function describe(v) {
  const titles = (v.via ?? []).filter((x) => typeof x === "object").map((x) => `${x.title} (${x.url})`);
  return `${v.name} ${v.range ?? ""} ${v.severity}: ${titles.join("; ") || `through ${(v.via ?? []).join(", ")}`}`;
}
