// An ID token from a google-auth-library client (what default() found, or what the caller built), asked
// of the client's kind (kinds/table.ts says which); the metadata server's from its identity endpoint;
// a client of the caller's own that mints ID tokens, its own way.
import type { AuthClient } from "google-auth-library";
import { CredCredentialsError, ERROR_CODES } from "../../errors.js";
import { metadataIdToken } from "../../hosted/metadata.js";
import { type FetchedIdToken, fetchedIdToken } from "../../protocols/id-token-reply.js";
import { MIN_VALIDITY_MS, hasValidity } from "../../token-cache/index.js";
import { clientTypeOf, kindNamed } from "../kinds/table.js";
import { idTokenForFile } from "./id-token-file.js";

/** What one ID token of a client is asked with, decided by ../id-token.ts. */
export interface ClientIdTokenRequest {
  audience: string;
  includeEmail: boolean;
  /** Where the token cache, the metadata server and the emulator are read. */
  env: NodeJS.ProcessEnv;
}

/** A client's ID token for `request.audience`: a cached one with more than 5 minutes left, else a new one. */
export async function idTokenOfClient(client: AuthClient, request: ClientIdTokenRequest): Promise<FetchedIdToken> {
  const type = await clientTypeOf(client);
  const remember = (mint: () => Promise<FetchedIdToken>) => remembered(client, request, mint);
  if (type === "metadata server") return remember(() => metadataIdToken(request.audience, request.env));
  const kind = kindNamed(type);
  if (kind !== undefined) return kind.clientIdToken(client, { ...request, fromFile, remembered: remember });
  const { fetchIdToken } = client as AuthClient & { fetchIdToken?: unknown };
  if (typeof fetchIdToken !== "function")
    throw new CredCredentialsError(
      "These credentials cannot mint ID tokens: cred-auth gets ID tokens for user credentials, service-account keys, impersonated service accounts, the metadata server and identity federation with service-account impersonation.",
      { code: ERROR_CODES.ID_TOKEN_UNSUPPORTED },
    );
  // A client of the caller's own that is an IdTokenProvider: its own way of getting one.
  return remember(async () =>
    fetchedIdToken(await fetchIdToken.call(client, request.audience), "The client's fetchIdToken()", request.audience),
  );

  async function fromFile(path: string): Promise<FetchedIdToken> {
    const token = await idTokenForFile(path, request);
    return { idToken: token.idToken, expiresAt: token.expiryDate };
  }
}

/** ID tokens of clients whose secrets cred-auth cannot key a file by, per client, kept for this process. */
const inMemory = new WeakMap<object, Map<string, Promise<FetchedIdToken>>>();

/** `mint()`'s token, reused while it has more than 5 minutes left; concurrent callers share one request. */
async function remembered(
  client: AuthClient,
  request: ClientIdTokenRequest,
  mint: () => Promise<FetchedIdToken>,
): Promise<FetchedIdToken> {
  const tokens = inMemory.get(client) ?? new Map<string, Promise<FetchedIdToken>>();
  inMemory.set(client, tokens);
  const key = JSON.stringify([request.audience, request.includeEmail]);
  const known = tokens.get(key);
  if (known) {
    const token = await known.catch(() => undefined);
    if (token && hasValidity({ expiry_date: token.expiresAt }, MIN_VALIDITY_MS)) return token;
    if (tokens.get(key) !== known) return remembered(client, request, mint); // another caller is refreshing
  }
  const flight = mint(); // a failed one stays until the next caller replaces it
  tokens.set(key, flight);
  return flight;
}
