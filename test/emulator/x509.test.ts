// The emulator's self-signed certificates (its ID-token keys at /oauth2/v1/certs) as OpenSSL reads
// them, whatever the random serial: DER allows one encoding of an INTEGER, and a serial starting
// 00 then 00-7f, written as it came, made every ID-token check of that emulator fail.
import assert from "node:assert/strict";
import { X509Certificate, generateKeyPairSync } from "node:crypto";
import { test } from "node:test";
import { selfSignedCertificate } from "../../dist/emulator/x509.js";

const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

for (const [serial, expected] of [
  ["0012345678abcdef", "12345678ABCDEF"],
  ["000000000000007f", "7F"],
  ["0080000000000001", "0080000000000001"],
  ["ff00000000000000", "00FF00000000000000"],
  ["0000000000000000", "00"],
  ["7fffffffffffffff", "7FFFFFFFFFFFFFFF"],
]) {
  test(`serial ${serial}: OpenSSL reads the certificate, its serial and its signature`, () => {
    const pem = selfSignedCertificate({
      commonName: "emulator",
      publicKey,
      privateKey,
      serial: Buffer.from(serial, "hex"),
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2027-01-01T00:00:00Z"),
    });
    const certificate = new X509Certificate(pem);
    assert.equal(certificate.serialNumber.replace(/^0+(?=.)/, ""), expected.replace(/^0+(?=.)/, ""));
    assert.ok(certificate.verify(publicKey));
    assert.equal(certificate.subject, "CN=emulator");
  });
}
