import { codeOf } from "./thrown.js";

/** Whether a process with this pid runs on this machine (one of another user counts: EPERM). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === "EPERM";
  }
}
