/**
 * A self-signed X.509 certificate around an RSA public key, written in DER by hand (node:crypto
 * reads certificates but does not make them). Google publishes its ID-token keys at
 * `/oauth2/v1/certs` as such certificates, and clients verify signatures with them.
 */
import { type KeyObject, sign } from "node:crypto";

const SHA256_WITH_RSA = "1.2.840.113549.1.1.11";
const COMMON_NAME = "2.5.4.3";

/** One DER element: tag, definite length, content. */
function element(tag: number, content: Buffer): Buffer {
  if (content.length < 0x80) return Buffer.concat([Buffer.from([tag, content.length]), content]);
  const length: number[] = [];
  for (let n = content.length; n > 0; n = Math.floor(n / 256)) length.unshift(n % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | length.length, ...length]), content]);
}

const sequence = (...items: Buffer[]): Buffer => element(0x30, Buffer.concat(items));

/**
 * A non-negative INTEGER of big-endian `bytes`, in DER's one encoding: no leading zero byte (a
 * random serial starting 00 then 00-7f was refused by OpenSSL as "illegal padding", one key in
 * 512), except the one that keeps a high first bit from reading as a sign.
 */
function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const value = bytes.subarray(start);
  return element(0x02, value[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

function objectId(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split(".").map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const base128 = [arc % 128];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) base128.unshift((n % 128) | 0x80);
    bytes.push(...base128);
  }
  return element(0x06, Buffer.from(bytes));
}

/** UTCTime, YYMMDDHHMMSSZ (years 1950 to 2049). */
function utcTime(date: Date): Buffer {
  return element(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-T:]/g, "")}Z`));
}

const name = (commonName: string): Buffer =>
  sequence(element(0x31, sequence(objectId(COMMON_NAME), element(0x0c, Buffer.from(commonName)))));

const SIGNATURE_ALGORITHM = sequence(objectId(SHA256_WITH_RSA), Buffer.from([0x05, 0x00]));

export interface CertificateRequest {
  commonName: string;
  publicKey: KeyObject;
  privateKey: KeyObject;
  serial: Buffer;
  notBefore: Date;
  notAfter: Date;
}

/** A version-3 certificate, issuer = subject, signed SHA256withRSA by its own key; PEM text. */
export function selfSignedCertificate(request: CertificateRequest): string {
  const tbs = sequence(
    element(0xa0, integer(Buffer.from([2]))),
    integer(request.serial),
    SIGNATURE_ALGORITHM,
    name(request.commonName),
    sequence(utcTime(request.notBefore), utcTime(request.notAfter)),
    name(request.commonName),
    request.publicKey.export({ type: "spki", format: "der" }),
  );
  const signature = sign("sha256", tbs, request.privateKey);
  const der = sequence(tbs, SIGNATURE_ALGORITHM, element(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}
