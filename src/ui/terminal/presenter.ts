import type { ReactElement } from "react";
import { CredCancelledError } from "../../errors.js";
import type { Presenter, SignInEvent } from "../../oauth/events.js";
import { loadTerminalModules } from "./modules.js";
import { createStore, isFinal, reduce } from "../view-state.js";
import { cancelledBecause, MESSAGES } from "../../messages.js";
import { inputClosedError } from "../words.js";

/** Something that shows a React element and can take it away (ink's `render`). */
export type Mount = (element: ReactElement) => { unmount(): void };

export interface TerminalPresenterOptions {
  /** Where the UI is drawn. Default `process.stderr`: stdout stays clean for the program's output. */
  stdout?: NodeJS.WriteStream;
  /** Where keys come from. Default `process.stdin` (must be a TTY). */
  stdin?: NodeJS.ReadStream;
  /** Aborted (CredCancelledError) on Ctrl+C, and the flow follows; without one, Ctrl+C raises SIGINT. */
  abort?: AbortController;
  /** Shows the app. Default: ink's `render` on `stdout`/`stdin` (tests pass ink-testing-library's). */
  mount?: Mount;
  /** Whether the face may colour its text on a terminal (default `true`; `NO_COLOR` turns it off in the plan). */
  color?: boolean;
  /** Lines written first, above the header: the emulator, unknown scopes. */
  notes?: readonly string[];
}

/** The terminal face: the URL written once, then an ink app of a line or two (spinner, input, result). */
export async function createTerminalPresenter(options: TerminalPresenterOptions = {}): Promise<Presenter> {
  const modules = await loadTerminalModules();
  const { SignInApp } = await import("./sign-in-app.js");
  const store = createStore();
  const codes = codeQueue();
  let cancelled = false;

  const cancel = (): void => {
    if (cancelled || isFinal(store.get())) return;
    cancelled = true;
    const error = new CredCancelledError(MESSAGES.signInCancelled); // the same words on every face
    store.set(reduce(store.get(), { type: "failed", error }));
    codes.fail(error);
    if (options.abort) options.abort.abort(error);
    else process.kill(process.pid, "SIGINT");
  };
  // Ctrl+D where a code or address is asked for ends the sign-in, as EOF does on the plain face.
  const endOfInput = (): void => {
    const { phase, paste } = store.get();
    if (phase === "code" || (phase === "waiting" && paste)) codes.fail(inputClosedError(true));
  };
  const onCode = (code: string): void => {
    if (codes.push(code)) store.set({ ...store.get(), phase: "checking" });
  };

  const mount: Mount =
    options.mount ??
    ((element) =>
      modules.ink.render(element, {
        stdout: options.stdout ?? process.stderr,
        stdin: options.stdin ?? process.stdin,
        exitOnCtrlC: false,
      }));
  const app = mount(
    modules.react.createElement(SignInApp, {
      modules,
      store,
      onCode,
      onCancel: cancel,
      onEndOfInput: endOfInput,
      color: options.color ?? true,
      notes: options.notes ?? [],
    }),
  );
  let closed = false;

  return {
    update(event: SignInEvent) {
      store.set(reduce(store.get(), event));
    },
    readCode(signal: AbortSignal) {
      const { phase, paste } = store.get();
      // Beside the loopback wait the address input shows with the spinner (the `waiting` event's `paste`).
      if (phase === "preparing" || (phase === "waiting" && !paste)) store.set({ ...store.get(), phase: "code" });
      return codes.next(signal);
    },
    async close() {
      if (closed) return;
      closed = true;
      codes.fail(new CredCancelledError(cancelledBecause("display closed")));
      // React commits store updates in a microtask: an update made just before close() must
      // reach the screen before ink draws its final frame.
      await new Promise((resolve) => setImmediate(resolve));
      app.unmount();
    },
  };
}

/** Codes typed by the user, handed to `readCode` in order. */
function codeQueue() {
  let waiter: { resolve(code: string): void; reject(error: Error): void } | undefined;
  let typed: string | undefined;
  let failure: Error | undefined;
  return {
    /** Takes a typed code; `false` once the queue has failed. */
    push(code: string): boolean {
      if (failure) return false;
      if (waiter) waiter.resolve(code);
      else typed = code;
      waiter = undefined;
      return true;
    },
    fail(error: Error): void {
      failure ??= error;
      waiter?.reject(error);
      waiter = undefined;
    },
    next(signal: AbortSignal): Promise<string> {
      if (failure) return Promise.reject(failure);
      if (typed !== undefined) {
        const code = typed;
        typed = undefined;
        return Promise.resolve(code);
      }
      return new Promise<string>((resolve, reject) => {
        const onAbort = () => {
          waiter = undefined;
          reject(new CredCancelledError(MESSAGES.signInCancelled));
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        waiter = {
          resolve: (code) => {
            signal.removeEventListener("abort", onAbort);
            resolve(code);
          },
          reject: (error) => {
            signal.removeEventListener("abort", onAbort);
            reject(error);
          },
        };
      });
    },
  };
}
