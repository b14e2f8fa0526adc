// The facts of a made-up host for runtime detection: a Linux desktop terminal unless told otherwise.
import type { HostFacts } from "../../dist/runtime/detect.js";

export function hostFacts(overrides: Partial<HostFacts> = {}): HostFacts {
  return {
    platform: "linux",
    stdinIsTTY: true,
    stdoutIsTTY: true,
    stderrIsTTY: true,
    hostname: "devbox",
    inContainer: () => false,
    ...overrides,
  };
}
