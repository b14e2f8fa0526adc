// Cells run one by one on a real Jupyter kernel through run_cells.py (jupyter_client), with
// Kernel › Interrupt at hand.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type ApproveOptions, approveSignIn, type BrowserResult } from "cred-auth/emulator";
import { kernelEnv, notebooksDir, type TslabFixture } from "./support.ts";

const driver = fileURLToPath(new URL("./run_cells.py", import.meta.url));

export interface Executed {
  stdout: string;
  stderr: string;
  plain: string[];
  /** The text/html of every display message, in order. */
  html: string[];
  error: string | null;
  /** The traceback lines of the kernel's error message (Deno's report of a failed cell; tslab prints on stderr). */
  traceback: string[];
  /** The execute reply's status: `ok`, `error`, or `abort` (tslab dropped the request). */
  status: string | null;
}

export interface DriverEvent extends Partial<Executed> {
  event: string;
  url?: string;
  status?: string;
  /** An input request's prompt, and how many sign-in links had been displayed before it. */
  prompt?: string;
  links?: number;
}

/** Sees each event while a cell runs; for an `input` event, returns what is typed (a string). */
type OnEvent = (event: DriverEvent) => unknown;

/** Where and how a {@link CellKernel} runs. */
export interface CellKernelOptions {
  python: string;
  /** The kernel spec's name: "tslab" or "deno". */
  kernel: string;
  /** A temporary folder for the kernel's HOME. */
  work: string;
  jupyterPath: string;
  emulatorHost: string;
  env?: Record<string, string>;
  /** The kernel's HOME (default: a fresh one): another kernel's, to play a restarted kernel. */
  home?: string;
  /** Where the kernel starts, its notebook's folder (default: notebooks/). */
  cwd?: string;
}

/** A Jupyter kernel run cell by cell through run_cells.py (which can press Kernel › Interrupt). */
export class CellKernel {
  readonly home: string;
  private readonly child: ChildProcess;
  private readonly events: AsyncIterator<string>;

  constructor({ python, kernel, work, jupyterPath, emulatorHost, env = {}, home, cwd }: CellKernelOptions) {
    this.home = home ?? mkdtempSync(join(work, "home-"));
    this.child = spawn(python, [driver, kernel], {
      cwd: cwd ?? notebooksDir,
      stdio: ["pipe", "pipe", "inherit"],
      env: kernelEnv(this.home, jupyterPath, emulatorHost, env),
    });
    mkdirSync(join(this.home, ".config"), { recursive: true });
    this.events = createInterface({ input: this.child.stdout! })[Symbol.asyncIterator]();
  }

  /** Runs `code`; `onEvent` sees each event while it runs. */
  async run(
    code: string,
    options: { interruptOn?: string; onEvent?: OnEvent } = {},
  ): Promise<Executed & { events: DriverEvent[] }> {
    this.child.stdin!.write(`${JSON.stringify({ code, interrupt_on: options.interruptOn ?? null })}\n`);
    return this.collect(options.onEvent);
  }

  /** The driver's events up to the result of the current request. */
  private async collect(onEvent?: OnEvent): Promise<Executed & { events: DriverEvent[] }> {
    const events: DriverEvent[] = [];
    for (;;) {
      const next = await this.events.next();
      assert.ok(!next.done, "the driver ended early");
      const event = JSON.parse(next.value) as DriverEvent;
      if (event.event === "executed") return { ...(event as Executed), events };
      events.push(event);
      const answer = await onEvent?.(event);
      // The kernel asked for input (Deno's prompt()): what onEvent returned is typed in.
      const input = typeof answer === "string" ? answer : "";
      if (event.event === "input") this.child.stdin!.write(`${JSON.stringify({ input })}\n`);
    }
  }

  /**
   * Sends every cell's execute request at once, as "Run All" or Shift+Enter pressed twice does
   * (the second is queued while the first runs); the results in order.
   */
  async runTogether(
    codes: readonly string[],
    options: { onEvent?: OnEvent } = {},
  ): Promise<Array<Executed & { events: DriverEvent[] }>> {
    this.child.stdin!.write(`${JSON.stringify({ codes })}\n`);
    const results: Array<Executed & { events: DriverEvent[] }> = [];
    for (const _ of codes) results.push(await this.collect(options.onEvent));
    return results;
  }

  /** Presses Kernel › Interrupt between cells; resolves once a card says "failed". */
  async interrupt(): Promise<Executed & { events: DriverEvent[] }> {
    this.child.stdin!.write(`${JSON.stringify({ interrupt: true })}\n`);
    return this.collect();
  }

  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.child.once("close", resolve));
    this.child.stdin!.end("\n");
    await closed;
  }
}

/**
 * The displays of an interrupt (`plain`, late ones included) end with the card saying it was
 * cancelled, and only one says so: a second draw would come late, under Deno under the next cell.
 */
export function assertCancelledOnce(plain: readonly string[]): void {
  assert.match(plain.at(-1) ?? "", /cancelled \(kernel interrupt\)\. Nothing was saved\. Run the sign-in cell again\./);
  assert.equal(
    plain.filter((text) => /cancelled \(kernel interrupt\)/.test(text)).length,
    1,
    `the card turns to cancelled once (a second draw comes late, under the next cell): ${plain.join(" | ")}`,
  );
}

/** A failure's words appear once in all a cell showed: its cards (each display's last form) and its error line. */
export function assertSaidOnce(ran: Executed, words: string): void {
  const shown = [ran.plain.at(-1) ?? "", ran.stdout, ran.stderr, ...ran.traceback].join("\n").toLowerCase();
  const times = shown.split(words.toLowerCase()).length - 1;
  assert.equal(times, 1, `"${words}" said ${times} times: ${JSON.stringify({ ...ran, html: undefined })}`);
}

/** Whether something accepts connections on `port` (IPv4 or IPv6 loopback). */
export async function listening(port: number): Promise<boolean> {
  for (const host of ["127.0.0.1", "::1"]) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return true;
  }
  return false;
}

/**
 * An `onEvent` that signs in like a browser at each link a card shows (`approve`: the account,
 * Deny, a browser on another machine); `got` sees what the browser ended on.
 */
export function approving(approve: ApproveOptions = {}, got?: (page: BrowserResult) => void) {
  return async (event: DriverEvent): Promise<void> => {
    if (event.event !== "sign-in" || !event.url) return;
    // Not `got?.(await ...)`: an optional call skips its arguments, and the browser with them.
    const page = await approveSignIn(event.url, approve);
    got?.(page);
  };
}

/** Runs `work` on `kernel`, which is shut down afterwards whatever happens. */
export async function using<T>(kernel: CellKernel, work: (kernel: CellKernel) => Promise<T>): Promise<T> {
  try {
    return await work(kernel);
  } finally {
    await kernel.close();
  }
}

/** A tslab kernel in `fixture` (its emulator, kernel spec and work folder), with `env`; `where`: another HOME, another folder. */
export function tslabKernelIn(
  fixture: TslabFixture,
  python: string,
  env: Record<string, string> = {},
  where: { home?: string; cwd?: string } = {},
): CellKernel {
  return new CellKernel({
    python,
    kernel: "tslab",
    work: fixture.work,
    jupyterPath: fixture.jupyterPath,
    emulatorHost: fixture.emulator.host,
    env,
    ...where,
  });
}
