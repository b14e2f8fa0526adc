/**
 * Kernel › Interrupt cancels the sign-in in progress. Both notebook kernels get Jupyter's
 * default `interrupt_mode` ("signal"): the front end's interrupt is a SIGINT to the kernel.
 * - tslab handles it with `process.on("SIGINT")`, which rejects the cell's top-level await
 *   ("Interrupted asynchronously") but leaves its promises running: the loopback port would
 *   stay open and the sign-in could complete later under another cell.
 * - Deno's kernel has no handler of its own: a SIGINT ends the kernel unless the code listens
 *   (`Deno.addSignalListener`); with a listener the cell keeps running.
 * So while a notebook card is live, a SIGINT listener tells the card at once (synchronously,
 * before the kernel reports the cell finished) and cancels the sign-in through the flow's
 * `cancelSignIn()`: the port closes and nothing is written.
 */
import { CredCancelledError } from "../errors.js";
import { cancelledBecause } from "../messages.js";
import { cancelSignIn } from "../oauth/pending.js";
import type { Presenter, SignInEvent } from "../oauth/events.js";

/** The words on the card after an interrupt. */
export const INTERRUPTED_MESSAGE = cancelledBecause("kernel interrupt");

type Unlisten = () => void;

interface SignalGlobals {
  Deno?: {
    addSignalListener?(signal: "SIGINT", handler: () => void): void;
    removeSignalListener?(signal: "SIGINT", handler: () => void): void;
  };
}

/**
 * Listens for the kernel's interrupt (SIGINT) until the returned function is called. Under
 * Node only when someone else already handles SIGINT (tslab does): a first listener would
 * take away Node's default, which ends the process.
 */
export function onKernelInterrupt(handler: () => void, globals: object = globalThis): Unlisten {
  const deno = (globals as SignalGlobals).Deno;
  if (typeof deno?.addSignalListener === "function") {
    deno.addSignalListener("SIGINT", handler);
    return () => deno.removeSignalListener?.("SIGINT", handler);
  }
  if (process.listenerCount("SIGINT") === 0) return () => {};
  process.on("SIGINT", handler);
  return () => process.off("SIGINT", handler);
}

/**
 * `presenter`, which an interrupt turns to "cancelled" and whose sign-in it cancels, from now
 * until the card shows a final state or is closed (then the listener goes: none is left over).
 */
export function cancelledByInterrupt(
  presenter: Presenter,
  listen: (handler: () => void) => Unlisten = onKernelInterrupt,
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
  unlisten = listen(() => {
    if (!unlisten) return; // a listener put back after its card ended
    stop();
    presenter.update({ type: "failed", error: new CredCancelledError(INTERRUPTED_MESSAGE) });
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
