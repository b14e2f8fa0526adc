// Kernel › Interrupt (a SIGINT) cancels the sign-in a live card shows: tslab would leave its port open and let it
// finish under another cell, and Deno's kernel would die of a SIGINT nobody listens for.
import { CredCancelledError } from "../errors.js";
import { cancelledBecause } from "../messages.js";
import { cancelSignIn, signInRunning } from "../oauth/pending.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";

/** The words on the card after an interrupt. */
export const INTERRUPTED_MESSAGE = cancelledBecause("kernel interrupt");

type Unlisten = () => void;

/** Hears an interrupt; `cellPrints`: the kernel lets the interrupted cell end with its error, and prints it (Deno). */
type OnInterrupt = (cellPrints?: boolean) => void;

interface SignalGlobals {
  Deno?: {
    addSignalListener?(signal: "SIGINT", handler: () => void): void;
    removeSignalListener?(signal: "SIGINT", handler: () => void): void;
  };
}

/**
 * Listens for the kernel's SIGINT until the returned function is called; under Node only when tslab
 * handles it already (a first listener would take away Node's default, which ends the process).
 */
export function onKernelInterrupt(handler: OnInterrupt, globals: object = globalThis): Unlisten {
  const deno = (globals as SignalGlobals).Deno;
  if (typeof deno?.addSignalListener === "function") {
    const printed = (): void => handler(true);
    deno.addSignalListener("SIGINT", printed);
    return () => deno.removeSignalListener?.("SIGINT", printed);
  }
  if (process.listenerCount("SIGINT") === 0) return () => {};
  const ended = (): void => handler(false); // Node passes the signal's name: not a verdict
  process.on("SIGINT", ended);
  return () => process.off("SIGINT", ended);
}

/** `presenter`, turned "cancelled" by an interrupt (which cancels its sign-in) until its card ends or closes. */
export function cancelledByInterrupt(
  presenter: Presenter,
  listen: (handler: OnInterrupt) => Unlisten = onKernelInterrupt,
): Presenter {
  let unlisten: Unlisten | undefined;
  const stop = (): void => {
    const remove = unlisten;
    unlisten = undefined;
    remove?.();
    // Stopped inside a cell's synchronous part, the listener was not there to remove: tslab's
    // `vm` (breakOnSigint) had taken the SIGINT listeners off, and puts them back when the part
    // ends. Removed again once it has: an old card must not answer a later interrupt.
    if (remove) queueMicrotask(remove);
  };
  unlisten = listen((cellPrints = false) => {
    if (!unlisten) return; // a listener put back after its card ended
    stop();
    // Deno prints the cancel a running sign-in throws into its cell; tslab ends the cell at once, printing its own.
    const thrown = cellPrints && signInRunning();
    presenter.update({ type: "failed", error: new CredCancelledError(INTERRUPTED_MESSAGE), thrown });
    cancelSignIn(INTERRUPTED_MESSAGE);
  });
  const wrapped: Presenter = {
    update(event: SignInEvent) {
      presenter.update(event);
      if (event.type === "signed-in" || event.type === "failed") stop();
    },
    async close() {
      stop();
      await presenter.close?.();
    },
  };
  if (presenter.readCode) wrapped.readCode = presenter.readCode.bind(presenter);
  if (presenter.drawn) wrapped.drawn = presenter.drawn.bind(presenter);
  return wrapped;
}
