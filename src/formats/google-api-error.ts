// Google's API error reply (`{"error": {code, message, status, details}}`): its status word, message and
// ErrorInfo reason with string metadata, each checked for its type; made safe where shown.
import { isObject } from "./fields.js";

/** What a Google API error reply says, the fields checked; absent ones undefined. */
export interface GoogleApiError {
  /** The google.rpc.Code name, e.g. `PERMISSION_DENIED`. */
  status?: string;
  message?: string;
  /** The ErrorInfo's reason, e.g. `SERVICE_DISABLED`. */
  reason?: string;
  /** The ErrorInfo's metadata, its string values only (`consumer`, `activationUrl`, ...). */
  metadata: Record<string, string>;
}

const WORD = /^[A-Z][A-Z0-9_]{0,63}$/;
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

/** Reads `body` as Google's API error reply; anything else reads as an error that says nothing. */
export function parseGoogleApiError(body: unknown): GoogleApiError {
  const error = isObject(body) && isObject(body.error) ? body.error : {};
  const info = Array.isArray(error.details)
    ? error.details.find((detail) => isObject(detail) && detail["@type"] === ERROR_INFO)
    : undefined;
  const reason = isObject(info) ? info.reason : undefined;
  return {
    ...(typeof error.status === "string" && WORD.test(error.status) ? { status: error.status } : {}),
    ...(typeof error.message === "string" ? { message: error.message } : {}),
    ...(typeof reason === "string" && WORD.test(reason) ? { reason } : {}),
    metadata: isObject(info) && isObject(info.metadata) ? stringsOf(info.metadata) : {},
  };
}

function stringsOf(record: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/** The project an ErrorInfo's `consumer` names (`projects/N`), or undefined. */
export function consumerProject(error: GoogleApiError): string | undefined {
  return /^projects\/([a-z0-9][a-z0-9:.-]{0,99})$/i.exec(error.metadata.consumer ?? "")?.[1];
}
