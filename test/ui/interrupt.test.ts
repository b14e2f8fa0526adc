import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCancelledError } from "cred-auth";
import { cancelledByInterrupt, INTERRUPTED_MESSAGE, onKernelInterrupt } from "../../dist/ui/interrupt.js";
import type { Presenter, SignInEvent } from "../../dist/oauth/events.js";

/** A presenter that records its events, and a kernel whose interrupt the test presses. */
function setup(readCode = false) {
  const events: SignInEvent[] = [];
  let closed = 0;
  const inner: Presenter = { update: (event) => void events.push(event), close: () => void closed++ };
  if (readCode) inner.readCode = async () => "4/0Ab";
  const handlers = new Set<() => void>();
  const listen = (handler: () => void) => {
    handlers.add(handler);
    return () => handlers.delete(handler);
  };
  const presenter = cancelledByInterrupt(inner, listen);
  const interrupt = () => {
    for (const handler of [...handlers]) handler();
  };
  return { presenter, events, handlers, interrupt, closed: () => closed };
}

test("an interrupt turns the card to cancelled at once, and stops listening", () => {
  const { presenter, events, handlers, interrupt } = setup();
  presenter.update({ type: "waiting" });
  assert.equal(handlers.size, 1, "listening while the sign-in is live");
  interrupt();
  const last = events.at(-1);
  assert.equal(last?.type, "failed");
  assert.ok(last?.type === "failed" && last.error instanceof CredCancelledError);
  assert.equal(last.error.message, INTERRUPTED_MESSAGE);
  assert.equal(handlers.size, 0, "no listener left over");
});

test("a final state or close() removes the listener; readCode passes through", async () => {
  const done = setup(true);
  assert.equal(await done.presenter.readCode!(new AbortController().signal), "4/0Ab");
  done.presenter.update({ type: "signed-in" });
  assert.equal(done.handlers.size, 0);
  const closed = setup();
  await closed.presenter.close?.();
  assert.equal(closed.handlers.size, 0);
  assert.equal(closed.closed(), 1);
  assert.equal(setup().presenter.readCode, undefined, "no readCode where the face has none");
});

test("under Node, no SIGINT listener is added where nobody handles SIGINT (it would keep Ctrl+C from ending the process)", () => {
  const before = process.listenerCount("SIGINT");
  assert.equal(before, 0);
  const stop = onKernelInterrupt(() => {});
  assert.equal(process.listenerCount("SIGINT"), 0);
  stop();
  const kernels = () => {};
  process.on("SIGINT", kernels);
  const unlisten = onKernelInterrupt(() => {});
  assert.equal(process.listenerCount("SIGINT"), 2, "beside the kernel's own handler (tslab)");
  unlisten();
  assert.equal(process.listenerCount("SIGINT"), 1);
  process.off("SIGINT", kernels);
});

test("under Deno, Deno.addSignalListener, and removed again", () => {
  const calls: string[] = [];
  const globals = {
    Deno: {
      addSignalListener: (signal: string) => void calls.push(`add ${signal}`),
      removeSignalListener: (signal: string) => void calls.push(`remove ${signal}`),
    },
  };
  const stop = onKernelInterrupt(() => {}, globals);
  stop();
  assert.deepEqual(calls, ["add SIGINT", "remove SIGINT"]);
});

test("a listener put back after its card ended (tslab's vm restores SIGINT listeners after a cell's synchronous part) is removed and ignored", async () => {
  const events: SignInEvent[] = [];
  const handlers: Array<() => void> = [];
  // Like tslab's breakOnSigint: a removal made while the cell's synchronous part runs is undone.
  const listen = (handler: () => void) => {
    handlers.push(handler);
    let removals = 0;
    return () => {
      removals++;
      if (removals > 1) handlers.splice(handlers.indexOf(handler), 1);
    };
  };
  const presenter = cancelledByInterrupt({ update: (event) => void events.push(event) }, listen);
  presenter.update({ type: "failed", error: new CredCancelledError("The sign-in was cancelled. Nothing was saved.") });
  assert.equal(handlers.length, 1, "still there right after (the vm put it back)");
  for (const handler of [...handlers]) handler();
  assert.equal(events.length, 1, "an interrupt now does not touch the ended card");
  await Promise.resolve();
  assert.equal(handlers.length, 0, "removed once the synchronous part is over");
});
