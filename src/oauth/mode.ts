import { CredCredentialsError, ERROR_CODES } from "../errors.js";
import type { LoopbackHost, PortRange } from "./loopback.js";

/** Options that choose the flow. */
export interface ModeOptions {
  useLocalWebserver?: boolean;
  /** @deprecated alias of `useLocalWebserver`. */
  authLocalWebserver?: boolean;
  redirectUri?: string;
}

let warnedAuthLocalWebserver = false;

/**
 * What the caller said about the flow: `useLocalWebserver`, or its deprecated alias
 * `authLocalWebserver` (which warns once per process); `undefined` when neither was given.
 * The one place that reads the alias.
 */
export function callerUseLocalWebserver(options: ModeOptions): boolean | undefined {
  if (options.authLocalWebserver !== undefined && !warnedAuthLocalWebserver) {
    warnedAuthLocalWebserver = true;
    process.emitWarning("The authLocalWebserver option is deprecated; use useLocalWebserver (same meaning).", {
      type: "DeprecationWarning",
      code: "CRED_AUTH_DEP_AUTH_LOCAL_WEBSERVER",
    });
  }
  return options.useLocalWebserver ?? options.authLocalWebserver;
}

/** {@link callerUseLocalWebserver}, default `true` (SPEC 4.1). */
export function useLocalWebserver(options: ModeOptions): boolean {
  return callerUseLocalWebserver(options) ?? true;
}

/**
 * `loopback` or `paste`. A `redirectUri` that is not a loopback address can only be the
 * copy-paste flow: the browser lands on that page, which shows the code.
 */
export function signInMode(options: ModeOptions): "loopback" | "paste" {
  const local = useLocalWebserver(options);
  if (!local) return "paste";
  if (options.redirectUri && !loopbackTarget(options.redirectUri)) {
    if (callerUseLocalWebserver(options) === true) {
      throw new CredCredentialsError(
        `redirectUri "${options.redirectUri}" is not a loopback address (http://localhost:PORT/), so the browser cannot come back to this program; use useLocalWebserver: false for a page that shows the code.`,
        { code: ERROR_CODES.INVALID_OPTION },
      );
    }
    return "paste";
  }
  return "loopback";
}

/** Host, port and path of a loopback redirect URI such as `http://127.0.0.1:9004/cb`; else undefined. */
export function loopbackTarget(uri: string): { host: LoopbackHost; ports: PortRange; path: string } | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  const host = url.hostname === "[::1]" ? "::1" : url.hostname;
  if (url.protocol !== "http:" || !url.port || (host !== "localhost" && host !== "127.0.0.1" && host !== "::1"))
    return undefined;
  if (url.search || url.hash) return undefined;
  const port = Number(url.port);
  return { host, ports: { first: port, last: port }, path: url.pathname };
}
