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
