/**
 * The redaction owner: whatever a server says back (the OAuth token endpoint, STS, IAM
 * Credentials, a metadata server, a hosted platform) may echo the request it was sent, and a
 * proxy or a hostile server may do so on purpose. Every secret sent in that request is taken out
 * of the reply's words in every form it can come back in: raw, percent-encoded (either hex case,
 * once or twice), form-encoded (`+` for a space), JSON-escaped, base64 and base64url (alone or
 * inside a longer encoded text, such as Basic credentials `id:secret`), and decoded when the secret
 * is itself an encoded text. Google's secrets hold
 * `/`, `+` and `=` (`1//0g…`, `4/0A…`, `GOCSPX-…`), so each form differs.
 */

/** What a secret is replaced with. */
export const REDACTED = "<redacted by cred-auth>";

/** Shorter values are left alone: replacing them everywhere would garble messages, not protect anything. */
export const MIN_SECRET_LENGTH = 8;

/** Replaces every form of the secrets it was made with; see {@link redactor}. */
export type Redact = (text: string) => string;

/**
 * A function that takes every form ({@link secretForms}) of each of `secrets` out of a text.
 * Values shorter than {@link MIN_SECRET_LENGTH} and non-strings are ignored.
 */
export function redactor(secrets: Iterable<unknown>): Redact {
  const forms = formsOf(secrets);
  return (text) => scrub(text, forms);
}

/** The forms of all `secrets`, longest first (a longer form may contain a shorter one). */
export function formsOf(secrets: Iterable<unknown>): string[] {
  const usable = [...secrets].filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH);
  return [...new Set(usable.flatMap(secretForms))].sort((a, b) => b.length - a.length);
}

/** `text` with each of `forms` (longest first) replaced by {@link REDACTED}. */
export function scrub(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) out = out.split(form).join(REDACTED);
  return out;
}

/** Strings in plain objects and arrays (8 levels deep) scrubbed as {@link scrub} does; other values as they are. */
export function scrubDeep(value: unknown, forms: readonly string[], depth = 0): unknown {
  if (typeof value === "string") return scrub(value, forms);
  if (depth > 8 || !value) return value;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, forms, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubDeep(item, forms, depth + 1)]));
}

/**
 * `error` and its causes (6 deep) as copies with every form of `secrets` taken out of their
 * messages and stacks, name and `code` kept: what a request's failure says (fetch quotes a header
 * value it refuses, a URL with its password) may be printed later (CRED_AUTH_DEBUG=1). Not an
 * Error: its text, scrubbed.
 */
export function scrubbedError(error: unknown, secrets: Iterable<unknown>, depth = 0): unknown {
  const forms = formsOf(secrets);
  if (!(error instanceof Error)) return typeof error === "string" ? scrub(error, forms) : error;
  const copy = new Error(scrub(error.message, forms));
  copy.name = error.name;
  copy.stack = scrub(error.stack ?? `${error.name}: ${error.message}`, forms);
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === "string") Object.assign(copy, { code });
  if (error.cause !== undefined && depth < 6) copy.cause = scrubbedError(error.cause, secrets, depth + 1);
  return copy;
}

/** The user info of every URL in `text` (`scheme://user:password@`) taken out: a password in a URL is a secret. */
export function withoutUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, `$1${REDACTED}@`);
}

/**
 * The forms a secret can take on its way back in a reply: raw; percent-encoded
 * (`encodeURIComponent`, form encoding, either hex case, once or twice); JSON-escaped (`\\/` too);
 * and the base64 and base64url cores of the raw and form-encoded secret, at each of the three
 * alignments it can have inside a longer encoded text. A secret that is itself percent-encoded (an
 * AWS subject token is a URL-encoded request) may come back decoded: each form of its decoded
 * text too. Forms shorter than {@link MIN_SECRET_LENGTH} are left out.
 */
export function secretForms(secret: string): string[] {
  const decoded = percentDecoded(secret);
  const texts = decoded === secret ? [secret] : [secret, decoded];
  return [...new Set(texts.flatMap(encodedForms))].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

function encodedForms(secret: string): string[] {
  const percent = encodeURIComponent(secret);
  const form = formEncoded(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  const texts = [secret, percent, form, json, json.replaceAll("/", "\\/"), encodeURIComponent(percent)];
  return [...texts, ...texts.map(lowerHex), ...[secret, form].flatMap(base64Cores)];
}

/** `application/x-www-form-urlencoded`, as a request body or Basic credentials (RFC 6749 2.3.1) carry it. */
export function formEncoded(text: string): string {
  return new URLSearchParams([["", text]]).toString().slice(1);
}

/** A form-encoded text decoded; unchanged when it is not one. */
export function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

/** A percent-encoded text decoded (`+` stays `+`: a secret's own plus); unchanged when it is not one. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `%2F` as `%2f`: percent-encoding is case-insensitive, and some servers write lower case. */
function lowerHex(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}

/**
 * The base64 and base64url characters that depend on `text` alone, wherever it starts inside a
 * longer encoded text: encoded after 0, 1 and 2 other bytes, less the characters those bytes or
 * the bytes after it share.
 */
function base64Cores(text: string): string[] {
  const bytes = Buffer.from(text);
  const cores: string[] = [];
  // Stryker disable next-line EqualityOperator: equivalent: a fourth alignment is the first one again, its core one character shorter
  for (let before = 0; before < 3; before++) {
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString("base64");
    const core = encoded.slice(Math.ceil((8 * before) / 6), Math.floor((8 * (before + bytes.length)) / 6));
    cores.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return cores;
}

/** The Basic `Authorization` credentials of a client: `id:secret`, raw and form-encoded first, in base64. */
export function basicForms(clientId: string, secret: string): string[] {
  return [`${clientId}:${secret}`, `${formEncoded(clientId)}:${formEncoded(secret)}`].map((pair) =>
    Buffer.from(pair).toString("base64"),
  );
}
