import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { createServer, type Socket } from "node:net";

/** A loopback port that nothing listens on (it was free a moment ago): connections are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A proxy on loopback that records every request and CONNECT crossing it, and refuses them all. */
export async function recordingProxy(t: {
  after(fn: () => Promise<void>): void;
}): Promise<{ url: string; crossed: string[] }> {
  const crossed: string[] = [];
  const server = createHttpServer((req, res) => {
    crossed.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    crossed.push(`CONNECT ${req.url}`);
    socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, crossed };
}
