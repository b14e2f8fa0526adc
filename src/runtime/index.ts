export { detectRuntime, currentHost, gcloudOnPath, notebookKernel } from "./detect.js";
export type { RuntimeInfo, RuntimeKind, HostFacts, RemoteEvidence, RemoteVerdict } from "./detect.js";
