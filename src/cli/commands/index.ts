// Every command of `cred-auth`, one line each, in the order of the program's help. A command's module
// is evaluated when its line is called (the build's lazy imports), so dispatch loads only the one asked.
import type { Command } from "../command.js";
import { config } from "./config.js";
import { emulator } from "./emulator.js";
import { login } from "./login.js";
import { printIdentityToken } from "./print-identity-token.js";
import { printToken } from "./print-token.js";
import { revoke } from "./revoke.js";
import { status } from "./status.js";

export const COMMANDS: Readonly<Record<string, () => Command>> = {
  login: () => login,
  "print-token": () => printToken,
  "print-identity-token": () => printIdentityToken,
  status: () => status,
  revoke: () => revoke,
  config: () => config,
  emulator: () => emulator,
};
