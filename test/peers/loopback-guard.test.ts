// The peer tests' second guard: strace lists every address a peer connects or sends to, and any
// outside loopback fails the test. Here a process that only points UDP sockets at documentation
// addresses (connect() on UDP sends nothing) must be caught, and one that stays home must not.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { addressesOutsideLoopback, findPeerTools } from "../support/peers.ts";

const run = promisify(execFile);
const tools = findPeerTools();
const python = tools.debianPython?.python ?? tools.bundledPython?.python;
const missing = !tools.strace ? "strace" : !python ? "python3" : undefined;
if (missing && process.env.CI)
  throw new Error(`${missing} is missing, and CI must run the loopback guard (see .ci/run)`);
if (missing) process.stderr.write(`\n!!! loopback-guard test not run: ${missing} not found\n\n`);

async function traced(script: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "guard-"));
  try {
    const log = join(dir, "strace.log");
    await run(tools.strace ?? "strace", [
      "-f",
      "-qq",
      "-s",
      "0",
      "-e",
      "trace=connect,sendto,sendmsg,sendmmsg",
      "-o",
      log,
      "--",
      python ?? "python3",
      "-c",
      script,
    ]);
    return addressesOutsideLoopback(await readFile(log, "utf8"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("an address outside loopback, IPv4 or IPv6, is caught; loopback ones are not", { skip: missing }, async () => {
  const away = await traced(
    [
      "import socket",
      "a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.connect(('192.0.2.1', 53))",
      "b = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); b.connect(('2001:db8::1', 53))",
      "c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.connect(('127.0.0.1', 9))",
    ].join("\n"),
  );
  assert.deepEqual(away.sort(), ["192.0.2.1", "2001:db8::1"]);
  const home = await traced(
    "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).connect(('127.0.0.1', 9))\nsocket.socket(socket.AF_INET6, socket.SOCK_DGRAM).connect(('::1', 9))",
  );
  assert.deepEqual(home, []);
});

test("addressesOutsideLoopback reads strace's forms of an address", () => {
  const log = [
    '1 connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
    '1 connect(4, {sa_family=AF_INET6, sin6_port=htons(53), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
    '2 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 0',
    '2 sendmmsg(5, [{msg_hdr={msg_name={sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("8.8.8.8")}, ...}}], 1, 0) = 1',
    '3 connect(6, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT',
  ].join("\n");
  assert.deepEqual(addressesOutsideLoopback(log), ["10.255.255.53", "8.8.8.8"]);
});
