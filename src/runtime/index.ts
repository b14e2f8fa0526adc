export { detectRuntime, currentHost } from "./detect.js";
export type { RuntimeInfo, RuntimeKind, HostFacts } from "./detect.js";
