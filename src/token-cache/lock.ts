// A cross-process lock: a file created with O_EXCL holding the owner's pid, host and time.
// Locks left by a dead process, or older than `staleMs`, are broken.
import { closeSync, linkSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { isProcessAlive } from "../util/alive.js";
import { readSmallFile, uniqueSuffix } from "./store.js";

/** A held lock; `release()` removes it if it is still ours. */
export interface HeldLock {
  release(): void;
}

/** `held`: ours now. `busy`: another live process holds it. `unavailable`: the directory cannot hold locks. */
export type LockAttempt = { state: "held"; lock: HeldLock } | { state: "busy" } | { state: "unavailable" };

interface LockOwner {
  pid: number;
  host: string;
  time: number;
}

/** Tries once to take the lock at `path` in the checked cache directory, breaking a stale one first; never waits. */
export function tryLock(path: string, staleMs: number): LockAttempt {
  for (let attempt = 0; attempt < 2; attempt++) {
    const content = JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now(), nonce: uniqueSuffix() });
    let fd: number | undefined;
    try {
      fd = openSync(path, "wx", 0o600);
      writeSync(fd, content);
      return { state: "held", lock: { release: () => releaseIfOurs(path, content) } };
    } catch (error) {
      // A lock created but not written (a full disk) is no one's: left there, it would look held.
      if (fd !== undefined) removeQuietly(path);
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return { state: "unavailable" };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    if (!breakIfStale(path, staleMs)) return { state: "busy" };
  }
  return { state: "busy" };
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

function releaseIfOurs(path: string, content: string): void {
  try {
    if (readSmallFile(path) === content) unlinkSync(path);
  } catch {}
}

/** Removes the lock at `path` when its owner is gone; true when it was removed. */
function breakIfStale(path: string, staleMs: number): boolean {
  let content: string;
  let mtimeMs: number;
  try {
    content = readSmallFile(path);
    mtimeMs = lstatSync(path).mtimeMs;
  } catch (error) {
    // Released between our open and our read: free now. Any other error makes the lock busy;
    // `true` there would only try once more and, the loop allowing two tries, end busy all the same.
    // Stryker disable next-line ConditionalExpression: equivalent when true (see above)
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
  if (!isStale(parseOwner(content), mtimeMs, staleMs)) return false;
  // Move it aside before deleting, so that a lock taken by someone else meanwhile is put back, not lost.
  const aside = `${path}.${uniqueSuffix()}.broken`;
  try {
    renameSync(path, aside);
  } catch {
    // Stryker disable next-line BooleanLiteral: equivalent: the lock is still there, so the second try finds it and ends busy too
    return false;
  }
  try {
    if (readSmallFile(aside) !== content) {
      try {
        linkSync(aside, path);
      } catch {}
      return false;
    }
    return true;
  } catch {
    return false;
  } finally {
    try {
      unlinkSync(aside);
    } catch {}
  }
}

function isStale(owner: LockOwner | undefined, mtimeMs: number, staleMs: number): boolean {
  const now = Date.now();
  // An unreadable owner is a lock being written right now, or junk: judge it by its age.
  if (!owner) return now - mtimeMs > staleMs;
  if (now - owner.time > staleMs) return true;
  return owner.host === hostname() && !isProcessAlive(owner.pid);
}

function parseOwner(content: string): LockOwner | undefined {
  try {
    const { pid, host, time } = JSON.parse(content) as Record<string, unknown>;
    if (
      // Stryker disable next-line ConditionalExpression: equivalent: Number.isInteger is false for a non-number
      typeof pid === "number" &&
      Number.isInteger(pid) &&
      pid > 0 &&
      typeof host === "string" &&
      typeof time === "number"
    )
      return { pid, host, time };
  } catch {}
  return undefined;
}
