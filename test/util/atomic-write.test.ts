import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { readFileLimited } from "../../dist/trust/files.js";
import { writeFileAtomic } from "../../dist/util/atomic-write.js";
import { firstOutput, tempDir } from "../support/files.ts";

const atomicWriteUrl = new URL("../../dist/util/atomic-write.js", import.meta.url).href;

test("writes the file with mode 0600 even over a looser umask or an existing 0644 file", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "f.json");
  writeFileSync(path, "old", { mode: 0o644 });
  chmodSync(path, 0o644);
  const umask = process.umask(0o000);
  try {
    await writeFileAtomic(path, "new");
  } finally {
    process.umask(umask);
  }
  assert.equal(readFileSync(path, "utf8"), "new");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ["f.json"], "no temporary file left behind");
});

test("creates only missing parent directories, with mode 0700", async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "existing"), { mode: 0o755 });
  chmodSync(join(dir, "existing"), 0o755);
  await writeFileAtomic(join(dir, "existing", "a", "b", "f"), "x");
  assert.equal(statSync(join(dir, "existing")).mode & 0o777, 0o755);
  assert.equal(statSync(join(dir, "existing", "a")).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, "existing", "a", "b")).mode & 0o777, 0o700);
});

test("replaces the file a symbolic link points to and keeps the link", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "real.json"), "old");
  symlinkSync("real.json", join(dir, "link.json"));
  await writeFileAtomic(join(dir, "link.json"), "new");
  assert.equal(readlinkSync(join(dir, "link.json")), "real.json");
  assert.equal(readFileSync(join(dir, "real.json"), "utf8"), "new");
});

test("a failed write removes its temporary file and leaves the old file", async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, "target.json"));
  await assert.rejects(writeFileAtomic(join(dir, "target.json"), "x"), { code: "EISDIR" });
  assert.deepEqual(readdirSync(dir), ["target.json"]);
});

test("readFileLimited reads whole files and refuses bigger ones", async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "small"), "12345");
  assert.equal((await readFileLimited(join(dir, "small"), 5)).toString(), "12345");
  await assert.rejects(readFileLimited(join(dir, "small"), 4), { code: "EFBIG" });
  await assert.rejects(readFileLimited(dir, 4), { code: "EISDIR" });
});

const KILLS = 30;
const PAD = 256 * 1024;

/** A child that rewrites `path` forever with whole JSON documents of known shape. */
function startWriter(path: string) {
  const script = `
    const { writeFileAtomic } = await import(${JSON.stringify(atomicWriteUrl)});
    const path = ${JSON.stringify(path)};
    process.stdout.write("ready\\n");
    for (let n = 0; ; n++) await writeFileAtomic(path, JSON.stringify({ n, pad: "x".repeat(${PAD}) }));
  `;
  return spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
}

test(`a writer killed mid-write ${KILLS} times never leaves a truncated file`, async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "creds.json");
  await writeFileAtomic(path, JSON.stringify({ n: -1, pad: "x".repeat(PAD) }));
  const seen = new Set<number>();
  for (let i = 0; i < KILLS; i++) {
    const child = startWriter(path);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await firstOutput(child);
    await sleep(5 + Math.floor(Math.random() * 40));
    child.kill("SIGKILL");
    await exited;
    const doc = JSON.parse(readFileSync(path, "utf8"));
    assert.equal(doc.pad.length, PAD, `kill ${i}: file is whole`);
    seen.add(doc.n);
  }
  // The kills must have landed while the writers were busy, not before they started.
  assert.ok(
    [...seen].some((n) => n >= 0),
    "writers got to replace the file before being killed",
  );
  const leftovers = readdirSync(dir).filter((name) => name !== "creds.json");
  assert.ok(
    leftovers.every((name) => /^\.creds\.json\.[0-9a-f]{12}\.tmp$/.test(name)),
    `only temp files may remain: ${leftovers}`,
  );
});
