import assert from "node:assert/strict";
import { test } from "node:test";
import { CredCancelledError } from "cred-auth";
import { cancelledByInterrupt, INTERRUPTED_MESSAGE, onKernelInterrupt } from "../../dist/ui/interrupt.js";
import type { Presenter, SignInEvent } from "../../dist/oauth/events.js";
import { beginSignIn, endSignIn, type PendingSignIn } from "../../dist/oauth/pending.js";

/** A presenter that records its events, and a kernel whose interrupt the test presses. */
function setup(readCode = false) {
  const events: SignInEvent[] = [];
  let closed = 0;
  const inner: Presenter = { update: (event) => void events.push(event), close: () => void closed++ };
  if (readCode) inner.readCode = async () => "4/0Ab";
  const handlers = new Set<(cellPrints?: boolean) => void>();
  const listen = (handler: (cellPrints?: boolean) => void) => {
    handlers.add(handler);
    return () => handlers.delete(handler);
  };
  const presenter = cancelledByInterrupt(inner, listen);
  const interrupt = (cellPrints?: boolean) => {
    for (const handler of [...handlers]) handler(cellPrints);
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

/** A sign-in a call drives (a cell awaits it) while `body` runs. */
function whileRunning(body: () => void): void {
  const pending = { cancel: () => {} } as unknown as PendingSignIn;
  beginSignIn(pending, () => {});
  try {
    body();
  } finally {
    endSignIn(pending);
  }
}

test("Deno's interrupt of a sign-in its cell awaits: the cell prints the cancel, so the card says it without the words", () => {
  const thrownOf = (events: SignInEvent[]) => {
    const last = events.at(-1);
    return last?.type === "failed" ? last.thrown : "not failed";
  };
  whileRunning(() => {
    const deno = setup();
    deno.interrupt(true);
    assert.equal(thrownOf(deno.events), true, "Deno prints the error the cell ends with");
    const tslab = setup();
    tslab.interrupt(false);
    assert.equal(thrownOf(tslab.events), false, "tslab ends the cell at once: only the card says it");
  });
  const between = setup();
  between.interrupt(true);
  assert.equal(thrownOf(between.events), false, "between two cells nobody awaits the sign-in: the card says it");
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
  const heard: unknown[] = [];
  const unlisten = onKernelInterrupt((cellPrints) => void heard.push(cellPrints));
  assert.equal(process.listenerCount("SIGINT"), 2, "beside the kernel's own handler (tslab)");
  process.emit("SIGINT", "SIGINT");
  assert.deepEqual(heard, [false], "Node's argument (the signal's name) is no verdict: tslab ends the cell itself");
  unlisten();
  assert.equal(process.listenerCount("SIGINT"), 1);
  process.off("SIGINT", kernels);
});

test("under Deno, Deno.addSignalListener, and removed again", () => {
  const calls: string[] = [];
  const globals = {
    Deno: {
      addSignalListener: (signal: string, listener: () => void) => {
        calls.push(`add ${signal}`);
        added = listener;
      },
      removeSignalListener: (signal: string, listener: () => void) =>
        void calls.push(`remove ${signal}${listener === added ? "" : " (another listener)"}`),
    },
  };
  let added: (() => void) | undefined;
  const heard: unknown[] = [];
  const stop = onKernelInterrupt((cellPrints) => void heard.push(cellPrints), globals);
  added?.();
  stop();
  assert.deepEqual(calls, ["add SIGINT", "remove SIGINT"]);
  assert.deepEqual(heard, [true], "Deno's kernel prints the error an interrupted cell ends with");
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
