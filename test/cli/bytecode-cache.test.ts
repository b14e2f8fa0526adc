// print-token's bytecode cache (src/cli.ts), played by the attacker:
// - uid 65534 shares XDG_CACHE_HOME (a sticky directory anyone may write, as /tmp) and wins the gap
//   between the directory checks and the read: it makes the cache directories the moment they were
//   found absent, with a .bin compiled from a source of the bundle's length (V8 checks no more);
// - a .bin of uid 65534's, or a link to one, in the user's own private cache directory;
// - the user's own cache is corrupt: V8 crashed on it on every run.
// The bundle runs uncached in the first case, and the corrupt cache is rejected and made again.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { withEmulator } from "../support/emulator.ts";
import { runCli, sandbox, userFile } from "./support.ts";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const emu = await withEmulator();
const digest = /BUNDLE_DIGEST = "([0-9a-f]{16})"/.exec(readFileSync(join(DIST, "cli.js"), "utf8"))?.[1];
const binName = `print-token-${digest}-${process.version}-${process.arch}.bin`;

/** V8 code cache for a source of the bundle wrapper's length that prints PWNED, made as V8 makes one for the bundle. */
function plantedBytecode(): Buffer {
  const bundle = readFileSync(join(DIST, "cli-bundle.js"), "utf8");
  const head = "(function (exports, require, module, __filename, __dirname) {";
  const evil = 'require("node:fs").writeSync(1, "PWNED\\n");';
  const source = `${head}${evil}${" ".repeat(bundle.length - evil.length)}\n})`;
  const script = `
    const vm = require("node:vm");
    const script = new vm.Script(process.env.SOURCE, { filename: "cli-bundle.js" });
    script.runInThisContext()({}, require, {}, "", "");
    process.stderr.write(script.createCachedData().toString("base64"));`;
  const made = spawnSync(process.execPath, ["-e", script], { env: { SOURCE: source }, encoding: "utf8" });
  assert.equal(made.stdout, "PWNED\n", made.stderr.slice(0, 400));
  return Buffer.from(made.stderr, "base64");
}

test("uid 65534 wins the gap in a shared XDG_CACHE_HOME with a same-length .bin: its code never runs", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  const shared = join(box.dir, "shared-cache");
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  const planted = join(box.dir, "planted.bin");
  writeFileSync(planted, plantedBytecode());
  // The attacker's move, made the moment the command has looked at the last directory.
  const race = join(box.dir, "race.cjs");
  writeFileSync(
    race,
    `const fs = require("node:fs");
const lstat = fs.lstatSync;
fs.lstatSync = function (p, ...rest) {
  const found = lstat.call(fs, p, ...rest);
  if (String(p).endsWith("compile-cache") && !found) {
    const dir = ${JSON.stringify(join(shared, "cred-auth", "compile-cache"))};
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(${JSON.stringify(planted)}, dir + "/" + ${JSON.stringify(binName)});
    for (const p of [${JSON.stringify(join(shared, "cred-auth"))}, dir, dir + "/" + ${JSON.stringify(binName)}]) fs.chownSync(p, 65534, 65534);
  }
  return found;
};`,
  );
  const env = { ...box.env, XDG_CACHE_HOME: shared };
  for (let run = 0; run < 2; run++) {
    const r = await runCli(["print-token", path], env, { nodeArgs: ["--require", race] });
    assert.doesNotMatch(r.stdout, /PWNED/, "the planted code ran as the user");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ya29\./);
  }
});

test("a corrupt cache of the user's own is rejected, the bundle runs, and the cache is made again", async () => {
  const box = sandbox(emu);
  mkdirSync(join(box.dir, ".cache"));
  const { path } = await userFile(emu, box);
  // The first run refreshes; the second, the cached path, makes the cache.
  for (let run = 0; run < 2; run++) assert.equal((await runCli(["print-token", path], box.env)).code, 0);
  const file = join(box.dir, ".cache", "cred-auth", "compile-cache", binName);
  const made = readFileSync(file);
  for (const at of [100, 5000, Math.floor(made.length / 2), made.length - 8]) {
    const corrupt = Buffer.from(made);
    corrupt.writeUInt32LE(0xffffffff, at);
    writeFileSync(file, corrupt, { mode: 0o600 });
    const before = statSync(file).ino;
    const r = await runCli(["print-token", path], box.env);
    assert.equal(r.signal, null, `V8 crashed on a cache corrupt at ${at}`);
    assert.equal(r.code, 0, `${at}: ${r.stderr}`);
    assert.match(r.stdout, /^ya29\./);
    assert.notEqual(statSync(file).ino, before, `the cache corrupt at ${at} was not made again`);
  }
  assert.deepEqual(
    readdirSync(join(box.dir, ".cache", "cred-auth", "compile-cache")).filter((f) => f.endsWith(".tmp")),
    [],
  );
});

test("in the user's private cache directory, a .bin of uid 65534's or a link to one is never run", async () => {
  const box = sandbox(emu);
  mkdirSync(join(box.dir, ".cache"));
  const { path } = await userFile(emu, box);
  const dir = join(box.dir, ".cache", "cred-auth", "compile-cache");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const theirs = join(box.dir, "theirs.bin");
  writeFileSync(theirs, plantedBytecode(), { mode: 0o644 });
  chownSync(theirs, 65534, 65534);
  for (const plant of [() => copyFileSync(theirs, join(dir, binName)), () => symlinkSync(theirs, join(dir, binName))]) {
    rmSync(join(dir, binName), { force: true });
    plant();
    chownSync(join(dir, binName), 65534, 65534);
    const r = await runCli(["print-token", path], box.env);
    assert.doesNotMatch(r.stdout, /PWNED/, "the planted code ran as the user");
    assert.equal(r.code, 0, r.stderr);
  }
});
