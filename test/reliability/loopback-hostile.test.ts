// A waiting sign-in's loopback receiver under 5,000 hostile requests over raw sockets (wrong
// paths and states, injected codes, huge queries and headers, bad percent-encoding, HTTP/1.0,
// garbage bytes, odd methods) while slowloris connections are held open. It never completes
// with a wrong state, never crashes, keeps answering, and the genuine browser still signs in.
// It is not reachable on this machine's non-loopback interface addresses.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { networkInterfaces } from "node:os";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { approveSignIn } from "cred-auth/emulator";
import { withEmulator } from "../support/emulator.ts";
import { freePortRange, hasIpv6Loopback, startSignInWith } from "../oauth/support.ts";
import { mapLimit } from "./support.ts";

const REQUESTS = 5000;
const IN_FLIGHT = 40;
const SLOWLORIS = 60;
const SCOPES = ["https://www.googleapis.com/auth/cloud-platform", "openid", "email"];
const ACCOUNT = "carol@example.com";

const emu = await withEmulator();
const env: NodeJS.ProcessEnv = { CRED_AUTH_EMULATOR_HOST: emu.host, BROWSER: "none" };

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Answer {
  status?: number;
  body: string;
}

/** Sends `payload` on a fresh connection, half-closes, and reads until the server closes (or `timeoutMs`). */
function exchange(host: string, port: number, payload: string | Buffer, timeoutMs = 10_000): Promise<Answer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host, port });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      const status = /^HTTP\/1\.[01] (\d{3}) /.exec(text)?.[1];
      resolve({ ...(status ? { status: Number(status) } : {}), body: text });
    };
    const timer = setTimeout(done, timeoutMs);
    // Browsers name the port in Host; the receiver answers only its own loopback host:port.
    const withPort =
      typeof payload === "string"
        ? payload.replace("\r\nHost: localhost\r\n", `\r\nHost: localhost:${port}\r\n`)
        : payload;
    socket.on("connect", () => socket.end(withPort));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", done);
    socket.on("close", done);
  });
}

const get = (target: string, extra = ""): string => `GET ${target} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`;

/** Hostile requests, by kind; `state` is the real one, used only to craft near misses. */
function hostileKinds(rnd: () => number, state: string, injected: string[]): Array<[string, () => string | Buffer]> {
  const word = (n: number): string =>
    Array.from({ length: n }, () => "abcdefghijklmnopqrstuvwxyz0123456789-_.~"[Math.floor(rnd() * 40)]).join("");
  const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256)));
  const flip = (s: string): string => {
    const i = Math.floor(rnd() * s.length);
    return s.slice(0, i) + (s[i] === "a" ? "b" : "a") + s.slice(i + 1);
  };
  return [
    ["wrong path", () => get(`/${word(8)}?code=${word(20)}&state=${word(20)}`)],
    ["favicon", () => get("/favicon.ico")],
    [
      "DNS rebinding (another Host)",
      () => `GET /?code=${word(30)}&state=${state} HTTP/1.1\r\nHost: rebound.${word(6)}.example\r\n\r\n`,
    ],
    ["wrong state", () => get(`/?code=${word(30)}&state=${word(43)}`)],
    [
      "near-miss state",
      () =>
        get(
          `/?code=${word(30)}&state=${[flip(state), state.slice(1), `${state}x`, state.toUpperCase(), ` ${state}`][Math.floor(rnd() * 5)]}`,
        ),
    ],
    ["missing state", () => get(`/?code=${word(30)}`)],
    ["empty state", () => get(`/?code=${word(30)}&state=`)],
    ["repeated state", () => get(`/?code=${word(30)}&state=${word(10)}&state=${word(10)}`)],
    ["error without state", () => get("/?error=access_denied")],
    ["error with wrong state", () => get(`/?error=${word(12)}&state=${word(43)}`)],
    ["injected genuine code", () => get(injected[Math.floor(rnd() * injected.length)]!)],
    ["huge query", () => get(`/?code=${word(1000)}&state=${"s".repeat(8000 + Math.floor(rnd() * 60_000))}`)],
    [
      "huge header",
      () => get(`/?code=x&state=${word(43)}`, `X-Fill: ${"h".repeat(17_000 + Math.floor(rnd() * 20_000))}\r\n`),
    ],
    [
      "many headers",
      () =>
        get(`/?code=x&state=${word(43)}`, Array.from({ length: 2500 }, (_, i) => `X-${i}: ${word(4)}\r\n`).join("")),
    ],
    [
      "bad percent-encoding",
      () => get(`/?code=%${word(1)}z%&state=%E0%A4%A${["", "%", "%G0", "%00", "%FF%FE"][Math.floor(rnd() * 5)]}`),
    ],
    ["NUL and control bytes", () => get(`/?code=a%00b&state=%00%0d%0a${word(5)}`)],
    ["HTTP/1.0", () => `GET /?code=${word(20)}&state=${word(43)} HTTP/1.0\r\n\r\n`],
    ["HTTP/0.9 and 9.9", () => [`GET /?code=x&state=y\r\n\r\n`, `GET / HTTP/9.9\r\n\r\n`][Math.floor(rnd() * 2)]!],
    ["absolute-form target", () => get(`http://evil.example/?code=${word(20)}&state=${word(43)}`)],
    [
      "odd path forms",
      () =>
        get(
          [
            `//?code=x&state=y`,
            `/./?code=x&state=y`,
            `/%2F?code=x&state=y`,
            `*`,
            `/?code=x&state=y#frag`,
            `/..%2f..%2fetc/passwd`,
          ][Math.floor(rnd() * 6)]!,
        ),
    ],
    [
      "other methods",
      () =>
        `${["POST", "PUT", "DELETE", "OPTIONS", "TRACE", "HEAD", "PATCH", "CONNECT"][Math.floor(rnd() * 8)]} /?code=${word(20)}&state=${word(43)} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 13\r\n\r\ncode=x&state=`,
    ],
    [
      "pipelined requests",
      () => get(`/?code=${word(10)}&state=${word(43)}`) + get("/") + get(`/?error=x&state=${word(43)}`),
    ],
    ["garbage bytes", () => bytes(1 + Math.floor(rnd() * 4096))],
    [
      "garbage after a request line",
      () => Buffer.concat([Buffer.from("GET / HTTP/1.1\r\n"), bytes(1 + Math.floor(rnd() * 512))]),
    ],
    ["TLS hello", () => Buffer.from("16030100a5010000a10303", "hex")],
    ["request line only, then close", () => `GET /?code=${word(20)}&state=${word(43)} HTTP/1.1\r\n`],
  ];
}

/** A connection that sends a partial request and then one byte now and then, holding the receiver's socket. */
function slowloris(host: string, port: number): { socket: Socket; closed: Promise<void> } {
  const socket = connect({ host, port });
  socket.on("error", () => {});
  socket.on("connect", () => socket.write("GET /?code=slow&state=slow HTTP/1.1\r\nHost: localhost\r\nX-Slow: "));
  const drip = setInterval(() => socket.writable && socket.write("a"), 1000);
  const closed = new Promise<void>((resolve) =>
    socket.on("close", () => {
      clearInterval(drip);
      resolve();
    }),
  );
  return { socket, closed };
}

test(`a waiting sign-in survives ${REQUESTS} hostile requests and held connections, then the genuine browser signs in`, {
  timeout: 240_000,
}, async (t) => {
  const seed = Number(process.env.CRED_AUTH_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  t.diagnostic(`seed ${seed} (repeat with CRED_AUTH_FUZZ_SEED=${seed})`);
  const rnd = prng(seed);
  const ports = await freePortRange(3);
  const pending = await startSignInWith({
    scopes: SCOPES,
    env,
    ports,
    useLocalWebserver: true,
    timeoutMs: 200_000,
  });
  t.after(() => pending.cancel());
  const state = new URL(pending.url).searchParams.get("state")!;
  const port = Number(new URL(pending.redirectUri).port);
  const hosts = ["127.0.0.1", ...((await hasIpv6Loopback()) ? ["::1"] : [])];

  let settled = false;
  const completion = pending.waitForBrowser();
  completion.then(
    () => (settled = true),
    () => (settled = true),
  );

  // Genuine codes of other sessions (same redirect URI and PKCE challenge, another state): a login-CSRF attempt.
  const injected: string[] = [];
  for (let i = 0; i < 5; i++) {
    const forged = new URL(pending.url);
    forged.searchParams.set("state", `attacker-${i}`);
    const result = await approveSignIn(forged.toString(), { followRedirect: false });
    assert.ok(result.code, "the emulator issued a code for the forged session");
    const target = new URL(result.url);
    injected.push(target.pathname + target.search);
  }

  const held = Array.from({ length: SLOWLORIS }, (_, i) => slowloris(hosts[i % hosts.length]!, port));
  const kinds = hostileKinds(rnd, state, injected);
  const statuses = new Map<string, Map<string, number>>();
  let probes = 0;
  let flooding = true;
  const probeLoop = (async () => {
    // A normal request keeps getting its answer while the flood and the held connections go on.
    while (flooding) {
      const answer = await exchange(hosts[probes % hosts.length]!, port, get("/favicon.ico"));
      assert.equal(answer.status, 404, `probe ${probes} during the flood was answered`);
      probes++;
      await sleep(250);
    }
  })();

  await mapLimit(
    Array.from({ length: REQUESTS }, (_, i) => i),
    IN_FLIGHT,
    async (i) => {
      const [kind, make] = kinds[i % kinds.length]!;
      const answer = await exchange(hosts[i % hosts.length]!, port, make());
      const outcome = answer.status === undefined ? "closed without an answer" : String(answer.status);
      const byKind = statuses.get(kind) ?? new Map<string, number>();
      byKind.set(outcome, (byKind.get(outcome) ?? 0) + 1);
      statuses.set(kind, byKind);
      assert.ok(
        answer.status === undefined ||
          answer.status === 400 ||
          answer.status === 404 ||
          answer.status === 421 ||
          answer.status === 431,
        `${kind}: answered ${answer.status}: ${answer.body.slice(0, 300)}`,
      );
      assert.equal(settled, false, `${kind}: the sign-in must still be waiting`);
    },
  );
  flooding = false;
  await probeLoop;

  const summary = [...statuses].map(
    ([kind, outcomes]) => `${kind}: ${[...outcomes].map(([o, n]) => `${n}x ${o}`).join(", ")}`,
  );
  t.diagnostic(`outcomes by kind\n${summary.join("\n")}`);
  t.diagnostic(`${probes} probes answered during the flood`);
  assert.ok(probes >= 1, "at least one probe ran during the flood");
  assert.equal(
    statuses.get("injected genuine code")?.get("400") !== undefined,
    true,
    "injected codes are refused with 400",
  );
  assert.equal(
    statuses.get("wrong state")?.get("400"),
    Math.ceil((REQUESTS - kinds.findIndex(([k]) => k === "wrong state")) / kinds.length),
    "every wrong state is refused with 400",
  );
  assert.equal(settled, false);
  assert.equal(emu.stats().byGrant.authorization_code ?? 0, 0, "no code was exchanged during the flood");

  // The genuine browser comes back, with the slowloris connections still held.
  const browser = await approveSignIn(pending.url, { account: ACCOUNT });
  const result = await completion;
  assert.equal(browser.status, 200);
  assert.match(browser.body, /Signed in\. You may close this window\./);
  assert.equal(
    emu.checkAccessToken(result.accessToken)?.account,
    ACCOUNT,
    "the tokens are those of the genuine sign-in",
  );
  assert.equal(emu.stats().byGrant.authorization_code, 1, "exactly one code was exchanged: the genuine one");

  // Finishing closes the receiver, held connections included, and frees the port.
  await Promise.race([
    Promise.all(held.map((h) => h.closed)),
    sleep(10_000, undefined, { ref: false }).then(() => assert.fail("held connections were not closed")),
  ]);
  const after = await exchange("127.0.0.1", port, get("/"), 2000);
  assert.equal(after.status, undefined, "nothing answers on the port any more");
});

test("the receiver is not reachable on this machine's non-loopback interface addresses", async (t) => {
  const ports = await freePortRange(2);
  const pending = await startSignInWith({
    scopes: SCOPES,
    env,
    ports,
    useLocalWebserver: true,
    timeoutMs: 60_000,
  });
  t.after(() => pending.cancel());
  const port = Number(new URL(pending.redirectUri).port);
  assert.equal((await exchange("127.0.0.1", port, get("/favicon.ico"))).status, 404, "reachable on loopback");

  const external = Object.entries(networkInterfaces()).flatMap(([name, addresses]) =>
    (addresses ?? [])
      .filter((a) => !a.internal)
      .map((a) => (a.family === "IPv6" && a.scopeid ? `${a.address}%${name}` : a.address)),
  );
  if (external.length === 0) {
    t.diagnostic(
      "this machine has no non-loopback interface address: reachability from another interface cannot be checked here",
    );
    t.skip("no non-loopback interface address");
    return;
  }
  t.diagnostic(`checked addresses: ${external.join(", ")}`);
  for (const host of external) {
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect({ host, port });
      socket.setTimeout(5000, () => {
        socket.destroy();
        resolve("timeout");
      });
      socket.on("connect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    });
    assert.notEqual(outcome, "connected", `the receiver must not accept connections on ${host}:${port}`);
  }
});
