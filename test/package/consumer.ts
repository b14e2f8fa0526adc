// The package as a user gets it: the tarball of `npm pack`, installed into a fresh project outside
// this repository, with the Google client libraries the docs and examples use, and TypeScript.
// Packed and installed once per package content: the first test file that asks installs it under
// the system's temp directory, in a directory named by the tarball's hash; the other files (running
// at the same time, or later) wait for it and share it. Nothing of this repository is reachable from
// there: no node_modules above it, so a sample that leans on a package it did not install fails.
//
// The tarball comes from `npm pack --ignore-scripts` of this checkout, whose dist/ `npm test` has
// just built; test/package/pack.test.ts proves separately that `npm pack` builds dist/ by itself.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { after } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * What the consumer installs beside cred-auth: the client libraries the docs and examples use, at
 * the versions this repository is tested with (npm's cache has them), and TypeScript with Node's types.
 */
export const CONSUMER_DEPENDENCIES = [
  "google-auth-library",
  "@google-cloud/bigquery",
  "@google-cloud/storage",
  "googleapis",
  "typescript",
  "@types/node",
] as const;

/** This Node first on PATH, so `npx`, npm and the bin's `#!/usr/bin/env node` run the Node the suite runs on. */
export const CONSUMER_PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);

/** An installed consumer project. */
export interface Consumer {
  /** The project: package.json and node_modules (cred-auth from the tarball, and CONSUMER_DEPENDENCIES). */
  dir: string;
  /** node_modules/cred-auth. */
  packageDir: string;
  /** The installed `cred-auth` command (node_modules/.bin/cred-auth). */
  bin: string;
  /** The paths inside the tarball. */
  files: string[];
}

const STALE_AFTER_MS = 15 * 60 * 1000;
const INSTALL_TIMEOUT_MS = 5 * 60 * 1000;

let installed: Promise<Consumer> | undefined;
let alone: Promise<Consumer> | undefined;

/** The consumer project for this checkout's package; installed once per package content. */
export function installedPackage(): Promise<Consumer> {
  installed ??= install(CONSUMER_DEPENDENCIES);
  return installed;
}

/**
 * The package as a library user installs it: the tarball and google-auth-library, nothing else (no
 * ink, no React: the command line's screen must come with the package). Installed once per content.
 */
export function installedWithGoogleAuthLibraryAlone(): Promise<Consumer> {
  alone ??= install(["google-auth-library"]);
  return alone;
}

async function install(dependencies: readonly string[]): Promise<Consumer> {
  const packDir = mkdtempSync(join(tmpdir(), "cred-auth-tarball-"));
  try {
    const packed = run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packDir], ROOT);
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as {
      filename: string;
      files: { path: string }[];
    }[];
    assert.ok(info, "npm pack said nothing");
    const tarball = join(packDir, info.filename);
    const specs = dependencies.map((name) => `${name}@${installedVersion(name)}`);
    const key = createHash("sha256").update(readFileSync(tarball)).update(specs.join("\n")).digest("hex").slice(0, 16);
    const dir = join(tmpdir(), `cred-auth-consumer-${key}`);
    await once(dir, () => populate(dir, tarball, specs));
    removeStale(dir);
    return {
      dir,
      packageDir: join(dir, "node_modules", "cred-auth"),
      bin: join(dir, "node_modules", ".bin", "cred-auth"),
      files: info.files.map((f) => f.path),
    };
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}

function installedVersion(name: string): string {
  const json = JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
    version: string;
  };
  return json.version;
}

/** The project itself: a package.json, then one `npm install` of the tarball and the dependencies. */
function populate(dir: string, tarball: string, specs: readonly string[]): void {
  for (let up = dirname(dir); ; up = dirname(up)) {
    assert.ok(!existsSync(join(up, "node_modules")), `${up} has a node_modules: the consumer would not be alone`);
    if (dirname(up) === up) break;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), `{ "name": "consumer", "version": "1.0.0", "private": true }\n`);
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", tarball, ...specs],
    dir,
    INSTALL_TIMEOUT_MS,
  );
}

/**
 * Runs `make` once for `dir` across processes: a `.ready` file says it was done; a `DIR.lock`
 * directory (holding the maker's pid) says it is being done. A lock whose process died is broken.
 */
async function once(dir: string, make: () => void): Promise<void> {
  const ready = join(dir, ".ready");
  const lock = `${dir}.lock`;
  const deadline = Date.now() + INSTALL_TIMEOUT_MS;
  for (;;) {
    if (existsSync(ready)) return touch(ready);
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() > deadline) throw new Error(`waited too long for ${lock}`);
      if (!alive(lock)) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
      continue;
    }
    try {
      writeFileSync(join(lock, "pid"), String(process.pid));
      rmSync(dir, { recursive: true, force: true });
      make();
      writeFileSync(ready, "");
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

function alive(lock: string): boolean {
  try {
    process.kill(Number(readFileSync(join(lock, "pid"), "utf8")), 0);
    return true;
  } catch (error) {
    // No pid file yet: the maker is between mkdir and write.
    return (error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function touch(path: string): void {
  const now = new Date();
  utimesSync(path, now, now);
}

/** Removes the consumers of other package contents that nobody used for 15 minutes (each is some 300 MB). */
function removeStale(current: string): void {
  for (const name of readdirSync(tmpdir())) {
    const dir = join(tmpdir(), name);
    if (!name.startsWith("cred-auth-consumer-") || name.endsWith(".lock") || dir === current) continue;
    const ready = join(dir, ".ready");
    const used = existsSync(ready) ? statSync(ready).mtimeMs : statSync(dir).mtimeMs;
    if (Date.now() - used > STALE_AFTER_MS && !existsSync(`${dir}.lock`)) rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh directory inside the consumer project (so its node_modules resolve), removed after the file. */
export function consumerWorkspace(consumer: Consumer, prefix: string): string {
  const runs = join(consumer.dir, "runs");
  mkdirSync(runs, { recursive: true });
  const dir = mkdtempSync(join(runs, prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs a command to completion; fails the test with its output when it fails. */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeout = 200_000,
  env: NodeJS.ProcessEnv = {},
): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PATH: CONSUMER_PATH, npm_config_update_notifier: "false", ...env },
    timeout,
  });
  assert.equal(r.status, 0, `${command} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** The installed package's emulator (`cred-auth emulator`), running in its own process. */
export interface PackagedEmulator {
  /** `127.0.0.1:PORT`, the value of CRED_AUTH_EMULATOR_HOST. */
  host: string;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** A POST to its admin API (`/__emulator/...`), as docs/emulator.md describes it; the JSON reply. */
  admin(path: string, body: unknown): Promise<unknown>;
}

/**
 * Starts `cred-auth emulator --port 0 --quiet ARGS` from the installed package, as a user would,
 * reads the `export CRED_AUTH_EMULATOR_HOST=...` line it prints, and stops it after the file.
 */
export async function startPackagedEmulator(
  consumer: Consumer,
  args: readonly string[] = [],
): Promise<PackagedEmulator> {
  const child = spawn(process.execPath, [consumer.bin, "emulator", "--port", "0", "--quiet", ...args], {
    cwd: consumer.dir,
    env: { PATH: CONSUMER_PATH, HOME: consumer.dir, NO_PROXY: "127.0.0.1,localhost" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  after(() => stop(child));
  const host = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^export CRED_AUTH_EMULATOR_HOST=(\S+)$/m.exec(out);
      if (match) resolve(match[1] ?? "");
    });
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`the emulator exited (${code}) before it listened:\n${out}`)));
  });
  const url = `http://${host}`;
  return {
    host,
    url,
    async admin(path, body) {
      const reply = await fetch(`${url}/__emulator/${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const text = await reply.text();
      assert.ok(reply.ok, `POST /__emulator/${path} answered ${reply.status}: ${text}`);
      return JSON.parse(text);
    },
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
