import { createServer, type IncomingMessage, type Server } from "node:http";
import { mulberry32 } from "../local/sample-proofs.js";

type RpcCall = { jsonrpc: "2.0"; id: number | string; method: string; params?: unknown[] };

export type RpcProxyOptions = {
  /** where requests go (the devnet) */
  target: string;
  /** added before each request is forwarded, like a remote provider's round trip */
  delayMs?: number;
  /**
   * Refuse eth_getLogs ranges wider than this many blocks, with a real provider's message:
   * "suggest" — Alchemy's, which names a range that works; "plain" — a message without a size (halving).
   */
  maxLogRange?: number;
  refusal?: "suggest" | "plain";
  /** Fault injection: return a JSON-RPC error object to answer a call with it instead of forwarding. */
  intercept?: (call: RpcCall) => { code: number; message: string } | undefined;
  /**
   * A node `blocks` behind the devnet answers a `share` of the HTTP requests (1: all of them; 0.5: about every other
   * one, drawn from a seeded generator, as a round-robin provider with one lagging node does): its head is lower,
   * blocks above it are null, eth_getLogs past it is refused as the execution-apis tests say, and eth_call at
   * "latest" reads its own older state.
   */
  lag?: { blocks: number; share: number; seed?: number };
};

export type RpcProxy = {
  url: string;
  /** HTTP requests received */
  requests: number;
  /** JSON-RPC calls received, by method */
  calls: Record<string, number>;
  refusals: number;
  /** HTTP requests answered as the lagging node */
  lagged: number;
  options: RpcProxyOptions;
  close(): Promise<void>;
};

/**
 * A loopback JSON-RPC proxy in front of the devnet: adds latency, counts requests, refuses wide eth_getLogs ranges
 * the way hosted providers do, and injects faults. Real HTTP, so the engine under test runs unmodified.
 */
export async function startRpcProxy(options: RpcProxyOptions): Promise<RpcProxy> {
  const proxy: RpcProxy = {
    url: "",
    requests: 0,
    calls: {},
    refusals: 0,
    lagged: 0,
    options,
    close: async () => {},
  };
  const lagDraw = mulberry32(options.lag?.seed ?? 1);
  const server: Server = createServer(async (req, res) => {
    proxy.requests++;
    const body = await readBody(req);
    let parsed: RpcCall | RpcCall[];
    try {
      parsed = JSON.parse(body);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    for (const c of calls) proxy.calls[c.method] = (proxy.calls[c.method] ?? 0) + 1;
    if (proxy.options.delayMs) await new Promise((r) => setTimeout(r, proxy.options.delayMs));
    const refused = calls.map((c) => refusal(proxy, c));
    if (refused.every((r) => r !== undefined)) {
      const out = refused.map((error, i) => ({ jsonrpc: "2.0", id: calls[i]!.id, error }));
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
      return;
    }
    const lag = proxy.options.lag;
    if (lag && lag.blocks > 0 && lagDraw() < lag.share) {
      const out = await answerLagging(proxy.options.target, calls, lag.blocks);
      if (!out) {
        res.writeHead(502).end();
        return;
      }
      proxy.lagged++;
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
      return;
    }
    const upstream = await forward(proxy.options.target, body);
    if (!upstream) {
      res.writeHead(502).end();
      return;
    }
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(upstream.text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  proxy.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

function refusal(proxy: RpcProxy, call: RpcCall): { code: number; message: string } | undefined {
  const injected = proxy.options.intercept?.(call);
  if (injected) return injected;
  const max = proxy.options.maxLogRange;
  if (max === undefined || call.method !== "eth_getLogs") return undefined;
  const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
  const from = Number(BigInt(filter.fromBlock ?? "0x0"));
  const to = Number(BigInt(filter.toBlock ?? "0x0"));
  if (to - from + 1 <= max) return undefined;
  proxy.refusals++;
  if (proxy.options.refusal === "plain") return { code: -32000, message: "block range too large" };
  const ok = `[0x${from.toString(16)}, 0x${(from + max - 1).toString(16)}]`;
  return {
    code: -32602,
    message: `Log response size exceeded. You can make eth_getLogs requests with up to a ${max} block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: ${ok}`,
  };
}

const hex = (n: number) => `0x${n.toString(16)}`;
const isTag = (b: unknown) => b === undefined || b === "latest" || b === "safe" || b === "finalized";

/** Answers each call as a node `behind` blocks behind the target would (RpcProxyOptions.lag). */
async function answerLagging(
  target: string,
  calls: RpcCall[],
  behind: number,
): Promise<unknown[] | undefined> {
  const head = await forward(target, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "eth_blockNumber" }));
  if (!head) return undefined;
  const lagHead = Math.max(0, Number(BigInt((JSON.parse(head.text) as { result: string }).result)) - behind);
  const above = (b: unknown) => typeof b === "string" && b.startsWith("0x") && Number(BigInt(b)) > lagHead;
  const out: unknown[] = [];
  for (const call of calls) {
    const reply = (r: object) => out.push({ jsonrpc: "2.0", id: call.id, ...r });
    const params = [...(call.params ?? [])];
    if (call.method === "eth_blockNumber") {
      reply({ result: hex(lagHead) });
      continue;
    }
    if (call.method === "eth_getBlockByNumber") {
      if (above(params[0])) {
        reply({ result: null });
        continue;
      }
      if (isTag(params[0])) params[0] = hex(lagHead);
    } else if (call.method === "eth_getLogs") {
      const f = (params[0] ?? {}) as { toBlock?: string; blockHash?: string };
      if (!f.blockHash && (isTag(f.toBlock) || above(f.toBlock))) {
        reply({ error: { code: -32602, message: "block range extends beyond current head block" } });
        continue;
      }
    } else if (call.method === "eth_call") {
      if (above(params[1])) {
        reply({ error: { code: -32000, message: "header not found" } });
        continue;
      }
      if (isTag(params[1])) params[1] = hex(lagHead);
    }
    const got = await forward(target, JSON.stringify({ ...call, params }));
    if (!got) return undefined;
    out.push(JSON.parse(got.text));
  }
  return out;
}

/** Posts a JSON-RPC body to the node; undefined when the node cannot be reached. */
export async function forward(
  target: string,
  body: string,
): Promise<{ status: number; text: string } | undefined> {
  try {
    const res = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: res.status, text: await res.text() };
  } catch {
    return undefined;
  }
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
