// Registers one test per ADC type a peer supports: the peer gets a token from the emulator (through
// the Google proxy), of the right account, having reached the right Google hosts and nothing
// outside loopback (the proxy's CONNECT log and strace's list of addresses both say so).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Emulator, startEmulator } from "cred-auth/emulator";
import { type GoogleProxy, startGoogleProxy } from "../support/google-proxy.ts";
import { findPeerTools, type PeerName, type PeerRun, requirePeer, runPeer } from "../support/peers.ts";
import { ADC_CASES, type AdcCase, PEER_EMULATOR } from "./cases.ts";

export const tools = findPeerTools();

/** The emulator, proxy and scratch directory of one test file, started before its first test. */
export function peerRig(): { emulator: () => Emulator; proxy: () => GoogleProxy; dir: () => string } {
  let emulator: Emulator | undefined;
  let proxy: GoogleProxy | undefined;
  let dir: string | undefined;
  before(async () => {
    emulator = await startEmulator(PEER_EMULATOR);
    dir = await mkdtemp(join(tmpdir(), "peer-files-"));
    if (tools.openssl) proxy = await startGoogleProxy(emulator);
  });
  after(async () => {
    await proxy?.close();
    await emulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} was not started`);
    return value;
  };
  return {
    emulator: () => need(emulator, "the emulator"),
    proxy: () => need(proxy, "the proxy"),
    dir: () => need(dir, "the directory"),
  };
}

/** What every peer run must show, whatever the ADC type. */
export function assertStayedHome(run: PeerRun, proxy: GoogleProxy): void {
  assert.deepEqual(proxy.foreignHosts(), [], "a peer asked the proxy for a host that is not Google's");
  assert.deepEqual(run.outsideLoopback, [], "a peer connected or sent to an address outside loopback");
}

export function definePeerTests(
  peer: PeerName,
  label: string,
  check?: (run: PeerRun, rig: ReturnType<typeof peerRig>, adc: AdcCase) => void,
): void {
  const rig = peerRig();
  for (const adc of ADC_CASES.filter((c) => c.peers.includes(peer))) {
    test(`${label}: ${adc.name}`, async (t) => {
      if (!requirePeer(t, tools, peer)) return;
      const emulator = rig.emulator();
      const proxy = rig.proxy();
      const seen = proxy.forwarded.length;
      let run: PeerRun;
      try {
        run = await runPeer(peer, tools, emulator, proxy, await adc.file(emulator, rig.dir()));
      } finally {
        emulator.setMetadata(null);
      }
      assert.equal(run.code, 0, `${label} failed:\n${run.stderr.slice(-3000)}`);
      const info = emulator.checkAccessToken(run.token);
      assert.ok(info, `the printed token is not one the emulator issued: ${JSON.stringify(run.stdout.slice(0, 200))}`);
      assert.match(info.account, adc.account);
      if (adc.scopes) assert.deepEqual(info.scopes, adc.scopes);
      const reached = new Set(proxy.forwarded.slice(seen).map((r) => r.host));
      for (const host of adc.hosts)
        assert.ok(reached.has(host), `${label} did not reach ${host}: ${[...reached].join(", ")}`);
      assertStayedHome(run, proxy);
      check?.(run, rig, adc);
    });
  }
}
