/** Side state kept per emulator state (the STS and IAM sides), made on first use. */
import type { EmulatorState } from "./state.js";

/** A lookup that makes `make(state)` the first time a state is seen, and answers the same object after. */
export function perState<T>(make: (state: EmulatorState) => T): (state: EmulatorState) => T {
  const registry = new WeakMap<EmulatorState, T>();
  return (state) => {
    let value = registry.get(state);
    if (value === undefined) {
      value = make(state);
      registry.set(state, value);
    }
    return value;
  };
}
