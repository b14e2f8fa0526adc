// Cloud Shell's legacy devshell port: a TCP socket on loopback (no HTTP) that answers the signed-in user's token.
import type * as Net from "node:net";
import { CredConnectionError, CredCredentialsError, ERROR_CODES } from "../errors.js";

// Loaded when Cloud Shell is asked, not when its check runs: default() asks every platform whether
// it is here (`devshellPort`) on every call, and node:net is dear to load (bench/README.md, target 4).
const net = (): typeof Net => require("node:net");

/** How long the legacy devshell port may take to answer. */
export const DEVSHELL_TIMEOUT_MS = 3000;

const LABEL = "Cloud Shell";
const MAX_REPLY_BYTES = 64 * 1024;
// The request is a JSON array preceded by its length: an empty CredentialInfoRequest.
const REQUEST = "2\n[]";

/** What Cloud Shell's legacy devshell port says about its signed-in user. */
export interface DevshellReply {
  email: string | null;
  projectId: string | null;
  accessToken: string;
  /** Seconds the token lives, when the port says. */
  expiresIn: number | undefined;
}

/** The port of `DEVSHELL_CLIENT_PORT`, when it holds one. */
export function devshellPort(env: NodeJS.ProcessEnv): number | undefined {
  const value = env.DEVSHELL_CLIENT_PORT?.trim();
  if (!value || !/^\d{1,5}$/.test(value)) return undefined;
  const port = Number(value);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** The signed-in user's token from the devshell port: send `2\n[]`, read `LEN\n[email, project, access_token, expires_in]`. */
export function askDevshell(port: number, timeoutMs = DEVSHELL_TIMEOUT_MS): Promise<DevshellReply> {
  const where = `the devshell port ${port}`;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const socket = net().connect({ host: "localhost", port, autoSelectFamily: true });
    let done = false;
    const finish = (error: Error | undefined, reply?: DevshellReply) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(reply as DevshellReply);
    };
    const timer = setTimeout(
      () =>
        finish(
          new CredConnectionError(`${LABEL}: ${where} did not answer within ${timeoutMs} ms.`, {
            code: ERROR_CODES.TIMEOUT,
          }),
        ),
      timeoutMs,
    );
    socket.on("connect", () => socket.write(REQUEST));
    socket.on("error", (error: NodeJS.ErrnoException) =>
      finish(
        new CredConnectionError(`${LABEL}: could not reach ${where} (${error.code ?? error.name}).`, {
          cause: error,
          code: ERROR_CODES.UNREACHABLE,
        }),
      ),
    );
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      try {
        if (received > MAX_REPLY_BYTES) throw unreadable(where, "too long");
        const json = frame(where, Buffer.concat(chunks));
        if (json !== undefined) finish(undefined, readReply(where, json));
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on("end", () => finish(unreadable(where, "the connection closed before a whole reply")));
  });
}

/** The JSON text of a `LEN\nJSON` frame, undefined while bytes are missing. */
function frame(where: string, bytes: Buffer): string | undefined {
  const newline = bytes.indexOf(0x0a);
  if (newline === -1) {
    if (bytes.length > 10) throw unreadable(where, "no length line");
    return undefined;
  }
  const header = bytes.subarray(0, newline).toString("latin1");
  if (!/^\d{1,8}$/.test(header)) throw unreadable(where, "a bad length line");
  const length = Number(header);
  const body = bytes.subarray(newline + 1);
  return body.length < length ? undefined : body.subarray(0, length).toString("utf8");
}

function readReply(where: string, json: string): DevshellReply {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw unreadable(where, "not JSON", error);
  }
  if (!Array.isArray(parsed)) throw unreadable(where, "not a JSON array");
  const [email, projectId, accessToken, expiresIn] = parsed as unknown[];
  if (typeof accessToken !== "string" || accessToken === "") {
    throw new CredCredentialsError(
      `${LABEL}: ${where} gave no access token; sign in with \`gcloud auth login\` in Cloud Shell.`,
      { code: ERROR_CODES.HOSTED_UNAVAILABLE },
    );
  }
  return {
    email: typeof email === "string" ? email : null,
    projectId: typeof projectId === "string" && projectId !== "" ? projectId : null,
    accessToken,
    expiresIn: typeof expiresIn === "number" ? expiresIn : undefined,
  };
}

function unreadable(where: string, why: string, cause?: unknown): CredConnectionError {
  return new CredConnectionError(`${LABEL}: ${where} sent an unreadable reply (${why}).`, {
    cause,
    code: ERROR_CODES.SERVER_ERROR,
  });
}
