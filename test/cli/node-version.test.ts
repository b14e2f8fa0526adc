// `cred-auth` on a Node older than 22: one line naming the Node that ran it and what to do, exit 1,
// before anything an older Node lacks. Run on the machine's Node 20 when it has one, and on this
// Node made to say it is 20 (a preload rewrites process.versions, which is all the guard reads).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ERROR_CODES } from "cred-auth";
import { CLI } from "./support.ts";

const dir = mkdtempSync(join(tmpdir(), "cred-auth-node-version-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const preload = join(dir, "node20.cjs");
writeFileSync(
  preload,
  'Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.20.2" } });\n',
);

function refused(node: string, version: string, args: readonly string[]): void {
  const run = spawnSync(node, [...args, CLI, "print-token", "credentials.json"], { encoding: "utf8", env: {} });
  assert.equal(run.status, 1, run.stderr);
  assert.equal(run.stdout, "");
  assert.equal(
    run.stderr,
    `cred-auth: cred-auth needs Node.js 22 or newer; this is Node.js ${version} (${node}). Install Node 22 or later (https://nodejs.org), or run the command with it: /path/to/node22 ${CLI} ... (${ERROR_CODES.NODE_TOO_OLD})\n`,
  );
}

test("a Node that says it is 20 is told, in one line, which Node ran and what is needed", () => {
  refused(process.execPath, "20.20.2", ["--require", preload]);
  // This Node itself passes the guard.
  const run = spawnSync(process.execPath, [CLI, "--version"], { encoding: "utf8", env: {} });
  assert.equal(run.status, 0, run.stderr);
});

const node20 = "/usr/bin/node";
const major = existsSync(node20)
  ? Number(spawnSync(node20, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.split(".")[0])
  : 0;
test("the machine's own Node 20 gets the same line", {
  skip: major > 0 && major < 22 ? false : "no Node older than 22 at /usr/bin/node",
}, () => {
  const version = spawnSync(node20, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
  refused(node20, version, []);
});

/** What the library says on import (ESM and CommonJS, as a .mjs script and a tslab cell load it), on `node`. */
function imported(node: string, args: readonly string[]): string[] {
  const index = new URL("../../dist/index.js", import.meta.url).pathname;
  return [
    spawnSync(
      node,
      [...args, "--input-type=module", "-e", `await import(${JSON.stringify(index.replace(/\.js$/, ".mjs"))});`],
      { encoding: "utf8", env: {} },
    ),
    spawnSync(node, [...args, "-e", `require(${JSON.stringify(index)}); require(${JSON.stringify(index)});`], {
      encoding: "utf8",
      env: {},
    }),
  ].map((run) => {
    assert.equal(run.status, 0, run.stderr);
    return run.stderr;
  });
}

test("the library too: an import on a Node that says it is 20 writes one line (ESM and CommonJS); on 22, nothing", () => {
  const line = (version: string) =>
    `cred-auth: cred-auth needs Node.js 22 or newer, and this is Node.js ${version}: some calls may fail. Install Node 22 or later (https://nodejs.org); in a notebook, start its kernel with it (docs/notebooks.md).\n`;
  assert.deepEqual(imported(process.execPath, ["--require", preload]), [line("20.20.2"), line("20.20.2")]);
  assert.deepEqual(imported(process.execPath, []), ["", ""], "Node 22: nothing on import");
});
