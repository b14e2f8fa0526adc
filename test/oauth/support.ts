// Shared by the OAuth tests: free port ranges and raw HTTP requests to loopback receivers.
import { request } from "node:http";
import { createServer, type Server } from "node:net";

/** A random range of `count` ports, each free on 127.0.0.1 right now (bounded tries). */
export async function freePortRange(count = 3): Promise<{ first: number; last: number }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20000 + Math.floor(Math.random() * 30000);
    const servers: Server[] = [];
    let ok = true;
    for (let port = first; port < first + count && ok; port++) {
      const server = createServer();
      ok = await new Promise<boolean>((resolve) => {
        server.once("error", () => resolve(false));
        server.listen(port, "127.0.0.1", () => resolve(true));
      });
      if (ok) servers.push(server);
    }
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    if (ok) return { first, last: first + count - 1 };
  }
  throw new Error("no free port range found");
}

/** The env value for a range. */
export function rangeEnv(range: { first: number; last: number }): string {
  return `${range.first}-${range.last}`;
}

export interface RawResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One HTTP request to `host:port` with a raw path (so malformed or odd targets can be sent). */
export function rawRequest(
  port: number,
  path: string,
  options: { host?: string; method?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: options.host ?? "127.0.0.1", port, path, method: options.method ?? "GET", agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Whether ::1 can be bound here (IPv6 loopback present). */
export async function hasIpv6Loopback(): Promise<boolean> {
  const server = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(0, "::1", () => resolve(true));
  });
  if (ok) await new Promise((resolve) => server.close(resolve));
  return ok;
}

/** Occupies every port of the range on 127.0.0.1; returns a function that frees them. */
export async function occupy(range: { first: number; last: number }): Promise<() => Promise<void>> {
  const servers: Server[] = [];
  for (let port = range.first; port <= range.last; port++) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    servers.push(server);
  }
  return async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  };
}
