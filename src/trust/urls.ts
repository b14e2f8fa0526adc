// The URL policy: a URL a file or a setting names that will receive a secret is judged against the
// universe the *user* chose, never the file's: a file may come from someone else (docs/security.md).
import { CredCredentialsError, type CredErrorOptions, ERROR_CODES } from "../errors.js";
import { EMULATOR_PATHS, ENV } from "../shared/constants.js";
import { quoted } from "./text.js";

/** Google's own universe: the one cred-auth trusts unless the user says otherwise. */
export const DEFAULT_UNIVERSE = "googleapis.com";

/** google-cloud's own variable naming the universe (Trusted Partner Cloud, sovereign clouds). */
export const UNIVERSE_ENV = "GOOGLE_CLOUD_UNIVERSE_DOMAIN";

/** The universe whose Google services may receive secrets, decided once from the user's own word. */
export interface Universe {
  /** `googleapis.com`, or the domain the user chose. */
  readonly domain: string;
  /** Who chose it: nobody (the default), {@link UNIVERSE_ENV}, or the `universeDomain` option. */
  readonly chosenBy: "default" | "environment" | "option";
  /** The emulator's base URL (`CRED_AUTH_EMULATOR_HOST`): Google's default-universe URLs go there instead. */
  readonly emulator?: string;
}

/**
 * The universe the user trusts: the `universeDomain` option, else GOOGLE_CLOUD_UNIVERSE_DOMAIN, else
 * googleapis.com; with the emulator's base URL when set. @throws ERR_INVALID_OPTION when one is unusable.
 */
export function trustedUniverse(env: NodeJS.ProcessEnv = process.env, option?: string): Universe {
  const fromEnv = env[UNIVERSE_ENV]?.trim();
  const chosen = option?.trim() ? checkedDomain(option, "the universeDomain option") : undefined;
  const domain = chosen ?? (fromEnv ? checkedDomain(fromEnv, UNIVERSE_ENV) : DEFAULT_UNIVERSE);
  const chosenBy = chosen ? "option" : fromEnv ? "environment" : "default";
  const host = env[ENV.emulatorHost]?.trim();
  return host ? { domain, chosenBy, emulator: emulatorBaseUrl(host) } : { domain, chosenBy };
}

const DOMAIN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

function checkedDomain(value: string, where: string): string {
  const domain = value.trim().toLowerCase();
  if (!DOMAIN.test(domain))
    throw new CredCredentialsError(
      `${where} is not a domain such as ${DEFAULT_UNIVERSE} (${quoted(value.slice(0, 100))}).`,
      { code: ERROR_CODES.INVALID_OPTION },
    );
  return domain;
}

/** The Google services a file's URLs may name, with the API's name for messages. */
const SERVICES = {
  oauth2: "Google's token endpoint",
  sts: "Google's Security Token Service",
  iamcredentials: "Google's IAM Credentials API",
  cloudresourcemanager: "Google's Cloud Resource Manager",
} as const;

/** A Google service that may receive a secret: its host is `SERVICE.UNIVERSE`. */
export type GoogleService = keyof typeof SERVICES;

/** Where a URL came from and what it will receive. */
export interface Destination {
  service: GoogleService;
  /** The field that names the URL, e.g. `token_url`. */
  field: string;
  /** The file that names it, for messages. */
  file?: string;
  /** The URL receives only secrets its own file holds: plain http to this machine is allowed without the emulator. */
  ownSecretOnly?: boolean;
}

/** Hosts of Google's OAuth token endpoint that older files name (accounts.google.com/o/oauth2/token, oauth2/v4). */
const LEGACY_OAUTH2_HOSTS = new Set(["accounts.google.com", "www.googleapis.com"]);

/** A URL that would receive a secret and is refused: `ERR_UNSAFE_TOKEN_URL` unless `options` say otherwise. */
function unsafeUrl(message: string, options: CredErrorOptions = {}): CredCredentialsError {
  return new CredCredentialsError(message, { code: ERROR_CODES.UNSAFE_TOKEN_URL, ...options });
}

/**
 * `raw` judged for `destination`: Google's `https://SERVICE.UNIVERSE` (the emulator's instead when set),
 * or plain http to this machine's emulator (any port for the file's own secret); else ERR_UNSAFE_TOKEN_URL.
 */
export function trustedUrl(raw: string, destination: Destination, universe: Universe): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url === undefined)
    throw unsafeUrl(`${namer(destination)} has a ${destination.field} that is not a URL; write it again.`);
  if (isGoogle(url, destination.service, universe.domain)) {
    if (universe.emulator === undefined) return url.toString();
    if (universe.domain === DEFAULT_UNIVERSE) return emulated(url, destination.service, universe.emulator);
  } else if (isPlainLoopback(url)) {
    if (isEmulator(url, universe) || destination.ownSecretOnly) return url.toString();
  }
  throw refusal(url, destination, universe);
}

/** `http://` to this machine without user info: the only plain-http URLs a secret may go to. */
function isPlainLoopback(url: URL): boolean {
  return url.protocol === "http:" && url.username === "" && url.password === "" && isLoopbackHostname(url.hostname);
}

/** Whether `url` is exactly the emulator's host and port: another local user may listen on any other. */
function isEmulator(url: URL, universe: Universe): boolean {
  return universe.emulator !== undefined && isPlainLoopback(url) && url.origin === universe.emulator;
}

function isGoogle(url: URL, service: GoogleService, domain: string): boolean {
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "" || url.port !== "") return false;
  if (url.hostname === `${service}.${domain}`) return true;
  return service === "oauth2" && domain === DEFAULT_UNIVERSE && LEGACY_OAUTH2_HOSTS.has(url.hostname);
}

/** Google's URL as the emulator serves it: the OAuth token endpoint at its token path, the others at theirs. */
function emulated(url: URL, service: GoogleService, emulator: string): string {
  return `${emulator}${service === "oauth2" ? EMULATOR_PATHS.token : url.pathname}`;
}

function refusal(url: URL, destination: Destination, universe: Universe): CredCredentialsError {
  const expected = `${destination.service}.${universe.domain}`;
  const local = !isPlainLoopback(url)
    ? ""
    : universe.emulator === undefined
      ? ` (http only with ${ENV.emulatorHost} set)`
      : ` (http only to the emulator, ${universe.emulator})`;
  return unsafeUrl(
    `${namer(destination)} names ${quoted(`${url.protocol}//${url.host}`.slice(0, 100))} as its ${destination.field}, not ${SERVICES[destination.service]} (${expected})${local}: no token goes there; fix it or remake the file.`,
  );
}

/** AWS's EC2 instance metadata service (IMDS): its two link-local addresses, IPv4 and IPv6. */
const IMDS_HOSTS = new Set(["169.254.169.254", "[fd00:ec2::254]"]);

/**
 * An AWS source's IMDS URL, judged: it answers the keys that sign the subject token, so only AWS's
 * 169.254.169.254 or [fd00:ec2::254] over plain http (with the emulator, its IMDS); else ERR_UNSAFE_TOKEN_URL.
 */
export function trustedImdsUrl(raw: string, field: string, file: string | undefined, universe: Universe): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const named = `${namer({ service: "sts", field, ...(file === undefined ? {} : { file }) })} has a ${field}`;
  if (url === undefined) throw unsafeUrl(`${named} that is not a URL; write it again.`);
  const plain = url.protocol === "http:" && url.username === "" && url.password === "";
  if (plain && IMDS_HOSTS.has(url.hostname) && (url.port === "" || url.port === "80"))
    return universe.emulator === undefined
      ? url.toString()
      : `${universe.emulator}${EMULATOR_PATHS.awsImds}${url.pathname}${url.search}`;
  if (isEmulator(url, universe) && url.pathname.startsWith(`${EMULATOR_PATHS.awsImds}/`)) return url.toString();
  throw unsafeUrl(
    `${named} at ${quoted(`${url.protocol}//${url.host}`.slice(0, 100))}, which is not AWS's instance metadata service (http://169.254.169.254 or http://[fd00:ec2::254]); cred-auth asks no other host for AWS keys.`,
  );
}

/** Refuses a subject-token URL with a user name or password: it would travel in the clear and be quoted by failures. */
export function refuseUrlCredentials(raw: string, field: string, file: string | undefined): void {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url === undefined || (url.username === "" && url.password === "")) return;
  throw unsafeUrl(
    `${namer({ service: "sts", field, ...(file === undefined ? {} : { file }) })} has a ${field} with a user name or password in it (at ${quoted(`${url.protocol}//${url.host}`.slice(0, 100))}); cred-auth sends none: give the secret in credential_source.headers instead.`,
  );
}

/** How messages name the file: `Credentials file "PATH"`, as every other problem with a file is said. */
function namer(destination: Destination): string {
  return destination.file === undefined ? "The credentials file" : `Credentials file ${quoted(destination.file)}`;
}

/** Refuses a file whose universe (absent: googleapis.com) is not the one trusted, naming both and how to trust it. */
export function checkFileUniverse(named: string | undefined, universe: Universe, file?: string): void {
  const fileUniverse = named ?? DEFAULT_UNIVERSE;
  if (fileUniverse === universe.domain) return;
  const theirs = quoted(fileUniverse.slice(0, 100));
  const how = DOMAIN.test(fileUniverse)
    ? `; to trust ${theirs}, set ${UNIVERSE_ENV}=${fileUniverse} (or pass universeDomain: ${theirs})`
    : "";
  const where = file === undefined ? "The credentials file" : `Credentials file ${quoted(file)}`;
  throw unsafeUrl(
    `${where} is for the universe ${theirs}, but cred-auth trusts ${JSON.stringify(universe.domain)} (${chosenWords(universe)})${how}.`,
    { code: ERROR_CODES.UNTRUSTED_UNIVERSE },
  );
}

function chosenWords(universe: Universe): string {
  if (universe.chosenBy === "option") return "the universeDomain option";
  if (universe.chosenBy === "environment") return UNIVERSE_ENV;
  return "the default";
}

/** The one loopback predicate: `localhost`, `[::1]` or 127.0.0.0/8; plain http goes only there, never via a proxy. */
export function isLoopbackHostname(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The names a local server of ours is reached by (`localhost`, `127.0.0.1`, `[::1]`): loopback, but narrower. */
export function isLoopbackName(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname);
}

/** The one emulator predicate: `url` is plain http to exactly CRED_AUTH_EMULATOR_HOST's host and port. */
export function isEmulatorUrl(url: URL, env: NodeJS.ProcessEnv = process.env): boolean {
  const host = env[ENV.emulatorHost]?.trim();
  if (!host) return false;
  try {
    return isPlainLoopback(url) && url.origin === emulatorBaseUrl(host);
  } catch {
    return false;
  }
}

/** `http://host:port` for a loopback `host:port` (`CRED_AUTH_EMULATOR_HOST`); throws for anything else. */
export function emulatorBaseUrl(hostPort: string): string {
  let url: URL;
  try {
    url = new URL(`http://${hostPort}`);
  } catch {
    throw new CredCredentialsError(
      `${ENV.emulatorHost}=${quoted(hostPort)} is not a host:port; use for example 127.0.0.1:9099.`,
      { code: ERROR_CODES.INVALID_OPTION },
    );
  }
  if (!isLoopbackName(url.hostname) || url.pathname !== "/" || !url.port) {
    throw new CredCredentialsError(
      `${ENV.emulatorHost} must be a loopback host:port such as 127.0.0.1:9099, not ${quoted(hostPort)}; the emulator never runs elsewhere.`,
      { code: ERROR_CODES.INVALID_OPTION },
    );
  }
  return `http://${url.host}`;
}

/** Google's consoles, where a refusal's link (enable an API, grant a role) may send the user. */
const CONSOLE_HOSTS = new Set(["console.developers.google.com", "console.cloud.google.com"]);

/** A link a Google reply asks the user to open, only when it is an https page of Google's console; else undefined. */
export function googleConsoleLink(raw: string | undefined): string | undefined {
  const url = raw !== undefined && URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol !== "https:" || url.username !== "" || url.password !== "" || url.port !== "") return undefined;
  return CONSOLE_HOSTS.has(url.hostname) ? url.toString() : undefined;
}
