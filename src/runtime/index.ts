export { detectRuntime, currentHost } from "./detect.js";
export type { RuntimeInfo, RuntimeKind, HostFacts, RemoteVerdict } from "./detect.js";
