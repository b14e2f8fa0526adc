// Shared by the emulator tests: a loopback receiver, PKCE pairs, auth URLs and token requests.
import { after } from "node:test";
import { createHash, createSign, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { DEMO_CLIENT } from "cred-auth/emulator";
import type { Emulator } from "cred-auth/emulator";

/** A loopback "app" that records the redirects it receives; closed after the file. */
export async function startReceiver(): Promise<{ redirectUri: string; received: URL[] }> {
  const received: URL[] = [];
  const server = createServer((req, res) => {
    received.push(new URL(req.url ?? "/", "http://127.0.0.1"));
    res.writeHead(200, { "Content-Type": "text/plain" });
    res.end("The authentication flow has completed. You may close this window.");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, received };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authUrl(emu: Emulator, params: Record<string, string | undefined>): string {
  const url = new URL(`${emu.url}/o/oauth2/v2/auth`);
  const all: Record<string, string | undefined> = {
    client_id: DEMO_CLIENT.clientId,
    response_type: "code",
    scope: "https://www.googleapis.com/auth/cloud-platform",
    access_type: "offline",
    prompt: "consent",
    ...params,
  };
  for (const [key, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

export interface TokenReply {
  status: number;
  json: Record<string, unknown>;
}

export async function postForm(
  url: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<TokenReply> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params).toString(),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export function tokenRequest(emu: Emulator, params: Record<string, string>, withClient = true): Promise<TokenReply> {
  const client: Record<string, string> = withClient
    ? { client_id: DEMO_CLIENT.clientId, client_secret: DEMO_CLIENT.clientSecret }
    : {};
  return postForm(`${emu.url}/token`, { ...client, ...params });
}

/** A service account's RS256 assertion (header and claims as given), signed with its private key. */
export function signAssertion(
  privateKey: string,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = { alg: "RS256", typ: "JWT" },
): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${part(header)}.${part(claims)}`;
  return `${input}.${createSign("RSA-SHA256").update(input).sign(privateKey).toString("base64url")}`;
}

/** An access token of a service-account key from the emulator's jwt-bearer grant. */
export async function serviceAccountAccessToken(key: Record<string, string>, scopes: string[]): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: key.client_email, scope: scopes.join(" "), aud: key.token_uri, iat: now, exp: now + 3600 };
  const reply = await postForm(key.token_uri, {
    grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
    assertion: signAssertion(key.private_key, claims, { alg: "RS256", typ: "JWT", kid: key.private_key_id }),
  });
  return String(reply.json.access_token);
}
