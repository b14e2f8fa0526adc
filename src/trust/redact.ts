// The redaction owner: a reply (OAuth, STS, IAM, a metadata server, a hosted platform) may echo the
// request, so every secret sent is taken out of its words in every form it can come back in.

/** What a secret is replaced with. */
export const REDACTED = "<redacted by cred-auth>";

/** Shorter values are left alone: replacing them everywhere would garble messages, not protect anything. */
export const MIN_SECRET_LENGTH = 8;

/** Replaces every form of the secrets it was made with; see {@link redactor}. */
export type Redact = (text: string) => string;

/** A function that takes every form of each of `secrets` (strings of at least MIN_SECRET_LENGTH) out of a text. */
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
 * `error` and its causes (6 deep) as copies scrubbed of every form of `secrets`, name and `code`
 * kept: fetch may quote a header value or a URL's password, printed later with CRED_AUTH_DEBUG=1.
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
 * Every form a secret can come back in: raw, percent-encoded (either case, once or twice, `+` for a
 * space), JSON-escaped, base64/base64url at each alignment, and each form of its decoded text.
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

/** The base64(url) characters that depend on `text` alone, wherever it starts inside a longer encoded text. */
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
