// A local server that plays an attacker on this machine: it records every request it gets and
// answers what the test tells it to, so a test can show what crossed (or never reached) it.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";

/** One request as the recorder saw it. */
export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A recording server on 127.0.0.1. */
export interface Recorder {
  url: string;
  port: number;
  requests: Recorded[];
  /** Everything received (request lines, headers, bodies), for "no secret arrived" checks. */
  seen(): string;
}

/** What to answer a request: status, headers and body. */
export type Answer = (request: Recorded) => { status?: number; headers?: Record<string, string>; body: string };

/** Starts a recorder that answers with `answer` (default: 404); closed after the test file. */
export async function startRecorder(answer: Answer = () => ({ status: 404, body: "" })): Promise<Recorder> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      requests.push(recorded);
      const reply = answer(recorded);
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(reply.body);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  after(() => new Promise<void>((done) => server.close(() => done())));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    seen: () => requests.map((r) => `${r.method} ${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`).join("\n"),
  };
}
