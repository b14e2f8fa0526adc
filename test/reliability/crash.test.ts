// Crash safety of saving credentials: writers killed with SIGKILL at random moments, and many
// processes saving at once. A reader must only ever find a whole credentials file, mode 0600.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { writeUserCredentialsFile } from "../../dist/stores/credentials-file.js";
import { tempDir } from "../support/files.ts";
import { credentialsDocument, documentText, identifyDocument } from "./documents.mjs";
import { isolatedEnv } from "./support.ts";

const SAVER = fileURLToPath(new URL("./saver.mjs", import.meta.url));
const KILLS = 200;
/** Writers alive at once: each lane owns one file and kills its writers one after another. */
const LANES = 6;
/** Lanes whose writer saves through the cache (it loads google-auth-library: slower to start); the others call writeUserCredentialsFile. */
const CACHE_LANES = new Set([1, 4]);
/** Node's compile cache makes the 200 children start faster (set by the kill test). */
let compileCacheEnv: NodeJS.ProcessEnv = {};
const TEMP_FILE = /^\.cred(_credentials)?\.json\.[0-9a-f]{12}\.tmp$/;

type How = "file" | "cache";

/** Where a writer of kind `how` puts its file, given its directory. */
function targetOf(how: How, dir: string): string {
  return how === "file" ? join(dir, "cred.json") : join(dir, ".config", "cred", "cred_credentials.json");
}

/** A saver child; `file` savers write `path` (default: their own file in `dir`), `cache` savers use HOME=`dir`. */
function startSaver(
  how: How,
  dir: string,
  slot: number,
  start: number,
  repeat: "loop" | "once",
  path = targetOf(how, dir),
) {
  const where = how === "file" ? path : dir;
  return spawn(process.execPath, [SAVER, how, where, String(slot), String(start), repeat], {
    env: isolatedEnv(dir, compileCacheEnv),
    stdio: ["pipe", "pipe", "inherit"],
  });
}

/** The document in the file at `path`, asserting it is whole and mode 0600. */
function readWhole(path: string, context: string): { slot: number; n: number } {
  const text = readFileSync(path, "utf8");
  const doc = identifyDocument(text);
  assert.ok(doc, `${context}: the file is one whole document (${text.length} bytes)`);
  assert.equal(statSync(path).mode & 0o777, 0o600, `${context}: mode 0600`);
  return doc;
}

/** Resolves once the child's stdout has a line matching `pattern`. */
function firstLine(child: ReturnType<typeof startSaver>, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (!pattern.test(seen)) return;
      child.stdout.off("data", onData);
      resolve();
    };
    child.stdout.on("data", onData);
    child.once("exit", () => reject(new Error(`the saver exited before writing: ${seen}`)));
  });
}

/** The temp files next to `path` (the next save removes those of killed writers). */
function leftovers(path: string): string[] {
  return readdirSync(dirname(path)).filter((name) => TEMP_FILE.test(name));
}

/** Only the file itself and temp files of killed writers (0600 too: they hold secrets) may be there. */
function assertOnlyLeftovers(path: string): number {
  const others = readdirSync(dirname(path)).filter((name) => name !== "cred.json" && name !== "cred_credentials.json");
  for (const name of others) {
    assert.match(name, TEMP_FILE, "only temp files of killed writers remain");
    assert.equal(statSync(join(dirname(path), name)).mode & 0o777, 0o600, `${name} is 0600`);
  }
  return others.length;
}

test(`${KILLS} writers killed with SIGKILL mid-save never leave a torn or loose file`, {
  timeout: 180_000,
}, async (t) => {
  const root = tempDir(t, "cred-auth-crash-");
  compileCacheEnv = { NODE_COMPILE_CACHE: tempDir(t, "cred-auth-compile-cache-") };
  let midWrite = 0;
  const lane = async (index: number): Promise<void> => {
    const how: How = CACHE_LANES.has(index) ? "cache" : "file";
    const dir = join(root, `lane-${index}`);
    const path = targetOf(how, dir);
    await writeUserCredentialsFile(path, credentialsDocument(index, -1));
    let last = -1;
    for (let kill = index; kill < KILLS; kill += LANES) {
      const tempsBefore = leftovers(path);
      const child = startSaver(how, dir, index, last + 1, "loop");
      const exited = new Promise((resolve) => child.once("exit", resolve));
      // Once the first save is done the writer is in its loop: kill it somewhere in a later save.
      await firstLine(child, /^w$/m);
      await sleep(Math.random() * 15);
      child.kill("SIGKILL");
      await exited;
      const doc = readWhole(path, `${how} kill ${kill}`);
      assert.equal(doc.slot, index);
      assert.ok(doc.n > last, `${how} kill ${kill}: never older than before (${doc.n} <= ${last})`);
      if (leftovers(path).some((name) => !tempsBefore.includes(name))) midWrite++;
      last = doc.n;
    }
    assertOnlyLeftovers(path);
    if (how === "cache") assert.equal(statSync(dirname(path)).mode & 0o777, 0o700, "the cache directory is 0700");
  };
  await Promise.all(Array.from({ length: LANES }, (_, index) => lane(index)));
  // A temp file left behind proves the kill landed between creating the temp file and the rename.
  t.diagnostic(`${midWrite} of ${KILLS} kills interrupted a save between its temp file and the rename`);
  assert.ok(midWrite >= KILLS / 10, `enough kills landed mid-save (${midWrite} of ${KILLS})`);
});

test("20 processes saving different credentials at once leave one of them, whole, 0600", {
  timeout: 120_000,
}, async (t) => {
  const home = tempDir(t, "cred-auth-concurrent-");
  const path = targetOf("cache", home);
  // Half save through writeUserCredentialsFile, half through the cache, all to the same file.
  const children = Array.from({ length: 20 }, (_, slot) =>
    startSaver(slot % 2 === 0 ? "file" : "cache", home, slot, 0, "once", path),
  );
  const ready = children.map((child) => new Promise((resolve) => child.stdout.once("data", resolve)));
  const exits = children.map((child) => new Promise<number | null>((resolve) => child.once("exit", resolve)));
  await Promise.all(ready);
  for (const child of children) child.stdin.end("go\n");
  assert.deepEqual(
    await Promise.all(exits),
    children.map(() => 0),
    "every save succeeded",
  );
  const doc = readWhole(path, "after 20 concurrent saves");
  assert.ok(doc.n === 0 && doc.slot >= 0 && doc.slot < 20);
  assert.equal(readFileSync(path, "utf8"), documentText(doc.slot, 0));
  assert.equal(assertOnlyLeftovers(path), 0, "no temp file is left when no writer died");
  assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);
});
