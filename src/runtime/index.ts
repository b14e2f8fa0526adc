export { detectRuntime, currentHost } from "./detect.js";
export type { RuntimeInfo, RuntimeKind, HostFacts } from "./detect.js";
export { chooseFlow } from "./flow.js";
export type { FlowChoice, FlowOptions } from "./flow.js";
