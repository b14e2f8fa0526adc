// Many print-token processes at once on the same credentials: one token request between them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { withEmulator } from "../support/emulator.ts";
import { collect, runCli, sandbox, startCli, userFile } from "./support.ts";

const emu = await withEmulator();

function cacheEntry(dir: string): string {
  const [entry] = readdirSync(dir).filter((f) => f.endsWith(".json"));
  assert.ok(entry, "a cache entry exists");
  return join(dir, entry);
}

test("20 processes on the same expired credentials: exactly one token request, all print the same valid token", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  assert.equal((await runCli(["print-token", path], box.env)).code, 0);
  const entry = cacheEntry(box.tokenCache);
  const expired = { ...JSON.parse(readFileSync(entry, "utf8")), expiry_date: Date.now() - 60_000 };
  writeFileSync(entry, JSON.stringify(expired));

  // A slow token endpoint keeps the first refresh in flight while the others start.
  emu.setTokenDelay(1500);
  const before = emu.stats().tokenRequests;
  try {
    const runs = await Promise.all(
      Array.from({ length: 20 }, () => collect(startCli(["print-token", path], box.env), 120_000)),
    );
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const tokens = new Set(runs.map((r) => r.stdout));
    assert.equal(tokens.size, 1, `all print the same token, got ${tokens.size}`);
    const token = runs[0]!.stdout.trim();
    assert.notEqual(token, expired.access_token);
    assert.ok(emu.checkAccessToken(token), "the token is valid");
    assert.equal(emu.stats().tokenRequests - before, 1, "exactly one token request");
    for (const r of runs) assert.equal(r.stderr, "");
  } finally {
    emu.setTokenDelay(0);
  }
  const cached = JSON.parse(readFileSync(entry, "utf8"));
  assert.ok(cached.expiry_date - Date.now() > 5 * 60_000, "the cache holds a valid token afterwards");
  assert.deepEqual(
    readdirSync(box.tokenCache).filter((f) => !f.endsWith(".json")),
    [],
    "no lock or temporary file left",
  );
});

test("a process killed while refreshing leaves a lock that the next process breaks", async () => {
  const box = sandbox(emu);
  const { path } = await userFile(emu, box);
  emu.setTokenDelay(30_000);
  try {
    const victim = startCli(["print-token", path], box.env);
    const done = collect(victim, 60_000);
    let lock: string | undefined;
    for (let i = 0; i < 300 && !lock; i++) {
      await sleep(50);
      lock = existsSync(box.tokenCache) ? readdirSync(box.tokenCache).find((f) => f.endsWith(".lock")) : undefined;
    }
    assert.ok(lock, "the refreshing process holds a lock");
    victim.kill("SIGKILL");
    await done;
    assert.ok(existsSync(join(box.tokenCache, lock)), "the killed process could not remove its lock");
  } finally {
    emu.setTokenDelay(0);
  }
  // Had the lock not been broken, this run would refresh after its bounded wait without taking
  // the lock, and the dead process's lock file would still be there.
  const r = await runCli(["print-token", path], box.env);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(emu.checkAccessToken(r.stdout.trim()));
  assert.deepEqual(
    readdirSync(box.tokenCache).filter((f) => f.endsWith(".lock")),
    [],
  );
});
