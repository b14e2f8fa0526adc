// The credentials documents the crash tests write: one per (slot, n), each recognisable whole.
// Plain JavaScript (types in documents.d.mts): the saver children load it 200 times, and
// type stripping would cost each of them time.
import { userCredentialsJson } from "../../dist/credentials/kinds/user/file.js";

const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "openid"];

/** Document `n` of writer `slot`; an id_token of a few kilobytes makes each write take a moment. */
export function credentialsDocument(slot, n) {
  return {
    type: "authorized_user",
    clientId: `client-${slot}.apps.example`,
    clientSecret: `secret-${slot}-${n}`,
    refreshToken: `refresh-${slot}-${n}`,
    tokenUrl: "https://oauth2.googleapis.com/token",
    scopes: SCOPES,
    idToken: `id.${String(n).padStart(8, "0").repeat(512)}.sig`,
    universeDomain: "googleapis.com", // what the cache records from a client
    account: `user${slot}@example.com`,
  };
}

/** The exact bytes of a document as cred-auth writes it. */
export function documentText(slot, n) {
  return userCredentialsJson(credentialsDocument(slot, n));
}

/** Which document `text` is when it is one whole (byte-identical to what cred-auth writes), else undefined. */
export function identifyDocument(text) {
  const match = /"refresh_token": "refresh-(\d+)-(-?\d+)"/.exec(text);
  if (!match) return undefined;
  const slot = Number(match[1]);
  const n = Number(match[2]);
  return documentText(slot, n) === text ? { slot, n } : undefined;
}
