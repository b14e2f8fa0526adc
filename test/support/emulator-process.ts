// `cred-auth emulator` (runEmulatorCommand) in a child process, for tests that drive it from outside.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

export interface EmulatorProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, from the "listening on" line. */
  url: string;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

const SCRIPT = `import("cred-auth/emulator").then((m) => m.runEmulatorCommand(process.argv.slice(1)), (e) => { console.error(e.message); process.exit(3); });`;

/** Starts the command with `args` and resolves once its output has matched `ready`. */
export async function startEmulatorProcess(args: string[], ready: RegExp): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, ["-e", SCRIPT, "--", ...args], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, "exit");
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (ready.test(stdout)) resolve();
    });
    child.on("exit", () => reject(new Error(`emulator exited early: ${stderr}`)));
  });
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
  if (!url) throw new Error(`no "listening on" line in: ${stdout}`);
  return {
    child,
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop() {
      child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
