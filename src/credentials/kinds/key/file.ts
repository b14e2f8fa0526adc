// `service_account`: a JSON key. Its fields checked, the private key parsed (never quoted). Pure.
import { invalid, stringFields } from "../../../formats/credentials-file.js";

// Only a key is checked with node:crypto: print-token on a user file must not load it (bench target 2).
const nodeCrypto = (): typeof import("node:crypto") => require("node:crypto");

/** A `service_account` JSON key file. The model is camelCase; its keys on disk are {@link KEY_KEYS}'. */
export interface ServiceAccountKeyFile {
  type: "service_account";
  projectId: string;
  privateKeyId?: string;
  privateKey: string;
  clientEmail: string;
  clientId?: string;
  /** `token_uri`, as written (absent: Google's); judged where used. */
  tokenUrl?: string;
  universeDomain?: string;
  quotaProjectId?: string;
}

/** Each field of the key model and its key on disk. */
const KEY_KEYS = {
  projectId: "project_id",
  privateKeyId: "private_key_id",
  privateKey: "private_key",
  clientEmail: "client_email",
  clientId: "client_id",
  tokenUrl: "token_uri",
  universeDomain: "universe_domain",
  quotaProjectId: "quota_project_id",
} as const satisfies Record<Exclude<keyof ServiceAccountKeyFile, "type">, string>;
const KEY_REQUIRED = ["projectId", "privateKey", "clientEmail"] as const;

/** The file's JSON, checked; its private key must parse. */
export function parseServiceAccountKey(fields: Record<string, unknown>, path: string): ServiceAccountKeyFile {
  const file: ServiceAccountKeyFile = {
    type: "service_account",
    ...stringFields(fields, path, KEY_KEYS, KEY_REQUIRED),
  };
  checkPrivateKey(file.privateKey, path);
  return file;
}

function checkPrivateKey(pem: string, path: string): void {
  try {
    nodeCrypto().createPrivateKey(pem);
  } catch (error) {
    // Node's message can quote the key material's start; keep only the name of the problem.
    throw invalid(
      path,
      `has a "private_key" that is not a valid PEM private key; download a new key for this service account`,
      privateKeyErrorSummary(error),
    );
  }
}

function privateKeyErrorSummary(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  return new Error(typeof code === "string" ? code : "invalid private key");
}
