import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { forward, readBody } from "../../lib/devnet/rpc-proxy.js";
import { mulberry32 } from "../../lib/local/sample-proofs.js";

/**
 * A loopback JSON-RPC proxy in front of a real node (anvil) that makes a given share of responses faulty, the ways
 * hosted providers fail: a JSON-RPC error, an HTTP 5xx, a response that never comes (timeout), a body cut short
 * (invalid JSON, or a connection closed mid-body), and a connection reset. Real HTTP over loopback, so the sync
 * engine and its viem client run unmodified; the faults are drawn from a seeded generator so a failing run can be
 * replayed with the same seed.
 */
export type FaultKind =
  | "rpc-error"
  | "http-5xx"
  | "timeout"
  | "truncated-json"
  | "truncated-stream"
  | "reset";

export const FAULT_KINDS: readonly FaultKind[] = [
  "rpc-error",
  "http-5xx",
  "timeout",
  "truncated-json",
  "truncated-stream",
  "reset",
];

export type FaultProxyOptions = {
  target: string;
  /** share of HTTP requests answered with a fault, 0..1 */
  rate: number;
  seed?: number;
  kinds?: readonly FaultKind[];
  /** how long a "timeout" holds the request before dropping it (the client should give up first) */
  hangMs?: number;
  /** latency added to every request, like a remote provider's round trip */
  delayMs?: number;
};

export type FaultProxy = {
  url: string;
  /** HTTP requests received, and how many of them were answered with each fault */
  requests: number;
  faults: Record<FaultKind, number>;
  injected(): number;
  /** change the fault rate on the fly (e.g. 1 to make every request fail, 0 to heal) */
  setRate(rate: number): void;
  close(): Promise<void>;
};

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const random = mulberry32(options.seed ?? 1);
  const kinds = options.kinds ?? FAULT_KINDS;
  let rate = options.rate;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const proxy: FaultProxy = {
    url: "",
    requests: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    injected: () => Object.values(proxy.faults).reduce((a, b) => a + b, 0),
    setRate: (r) => {
      rate = r;
    },
    close: async () => {},
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    proxy.requests++;
    const body = await readBody(req);
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const fault = random() < rate ? kinds[Math.floor(random() * kinds.length)]! : undefined;
    if (fault) proxy.faults[fault]++;
    switch (fault) {
      case "rpc-error": {
        const ids = requestIds(body);
        const error = (id: unknown) => ({
          jsonrpc: "2.0",
          id,
          error: { code: -32603, message: "injected fault: internal error" },
        });
        const out = Array.isArray(ids) ? ids.map(error) : error(ids);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
        return;
      }
      case "http-5xx":
        res
          .writeHead(random() < 0.5 ? 502 : 503, { "content-type": "text/plain" })
          .end("injected fault: bad gateway");
        return;
      case "timeout": {
        const timer = setTimeout(() => {
          timers.delete(timer);
          res.destroy();
        }, options.hangMs ?? 5000);
        timers.add(timer);
        return;
      }
      case "reset":
        req.socket.destroy();
        return;
    }
    const upstream = await forward(options.target, body);
    if (!upstream) {
      res.writeHead(502).end();
      return;
    }
    const text = upstream.text;
    if (fault === "truncated-json") {
      // A complete HTTP response whose body stops halfway: the client sees invalid JSON.
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(text.slice(0, Math.floor(text.length / 2)));
      return;
    }
    if (fault === "truncated-stream") {
      // Content-Length promises the whole body; the connection closes after half of it.
      const bytes = Buffer.from(text);
      res.writeHead(200, { "content-type": "application/json", "content-length": String(bytes.length) });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
      return;
    }
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  proxy.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  proxy.close = () =>
    new Promise((resolve) => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return proxy;
}

function requestIds(body: string): unknown {
  try {
    const parsed = JSON.parse(body) as { id?: unknown } | { id?: unknown }[];
    return Array.isArray(parsed) ? parsed.map((c) => c.id ?? null) : (parsed.id ?? null);
  } catch {
    return null;
  }
}
