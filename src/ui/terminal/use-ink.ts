// The ink modules every component draws with: ink and ink-text-input are ESM with top-level await, so the terminal
// face loads them with import() (modules.ts), not require, and the app hands them down through this context.
import { createContext, useContext } from "react";
import type { TerminalModules } from "./modules.js";

/** The loaded ink modules, provided by {@link SignInApp} to the components under it. */
export const InkModules = createContext<TerminalModules | undefined>(undefined);

export function useInk(): TerminalModules {
  const modules = useContext(InkModules);
  if (!modules) throw new Error("useInk: a component of the terminal face was drawn outside its SignInApp");
  return modules;
}
