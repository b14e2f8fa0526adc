// Shared by the bench tests: run the project's Node on a script and collect its output.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node ARGS` (this process's Node, cwd the project root) to completion. */
export function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
