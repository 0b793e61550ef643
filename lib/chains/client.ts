import { AsyncLocalStorage } from "node:async_hooks";
import { createPublicClient, fallback, http, type PublicClient, type Transport } from "viem";
import type { ChainConfig } from "./registry.js";

export type ChainClient = PublicClient<Transport>;

export type ClientOptions = {
  /** Replaces the HTTP transport (tests: fault injection; benches: counting). */
  transport?: Transport;
  /** Per-request timeout; a hung RPC must not eat a serverless function's whole budget. */
  timeoutMs?: number;
  /** Called once per HTTP request sent, to count RPC requests per run. */
  onRequest?: () => void;
  /**
   * Send concurrent calls as one JSON-RPC batch of up to 100 per HTTP request: how attestations are read on a chain
   * without Multicall3. Default: on exactly when the chain has no Multicall3. Otherwise calls issued in the same tick
   * still share an HTTP request, a few at most (QUIET_BATCH): what makes a quiet sync run two round trips (the head
   * with the reorg check; the logs with the new cursor's hash) without sending large batches, which some providers
   * limit.
   */
  jsonRpcBatch?: boolean;
};

/**
 * A viem public client for one chain: an http transport per RPC URL, wrapped in viem's `fallback` when several are
 * configured (RPC_URL_<CHAIN>=a,b), so one failing provider does not stop the chain. The viem chain object is built
 * from our registry, never imported from viem/chains (cold start: docs/architecture.md).
 */
export function createChainClient(chain: ChainConfig, options: ClientOptions = {}): ChainClient {
  const transport = options.transport
    ? withCallerSignal(options.transport)
    : httpTransport(chain.rpcUrls, { ...options, jsonRpcBatch: options.jsonRpcBatch ?? !chain.multicall3 });
  return createPublicClient({
    chain: {
      id: chain.chainId,
      name: chain.displayName,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: chain.rpcUrls } },
    },
    transport,
    // The engine batches reads itself (Multicall3); viem's own batching would hide request counts.
    batch: { multicall: false },
    cacheTime: 0,
  });
}

/** Calls per HTTP request on a chain with Multicall3: a quiet run's pairs, and the odd schema read beside them. */
const QUIET_BATCH = 4;

function httpTransport(urls: string[], options: ClientOptions): Transport {
  if (urls.length === 0) throw new Error("no RPC URL configured");
  const one = (url: string) =>
    withCallerSignal(
      http(url, {
        timeout: options.timeoutMs ?? 15_000,
        retryCount: 2,
        retryDelay: 250,
        batch: { batchSize: options.jsonRpcBatch ? 100 : QUIET_BATCH, wait: 0 },
        // viem uses a truthy return value of this hook as the fetch init: return nothing.
        ...(options.onRequest
          ? {
              onFetchRequest: () => {
                options.onRequest?.();
              },
            }
          : {}),
      }),
    );
  return urls.length === 1
    ? one(urls[0]!)
    : fallback(
        urls.map((url) => knowingBlocks(one(url))),
        { rank: false, retryCount: 1 },
      );
}

/**
 * viem's `fallback` moves to the next endpoint on an error only, and a node that lags answers a block it does not
 * have yet with `null`, not an error. Behind a fallback, such an answer becomes an error, so the next endpoint is
 * asked; when none knows the block, the caller sees it as unknown (lib/sync/lag.ts), never as a reorg.
 */
function knowingBlocks(transport: Transport): Transport {
  return (args) => {
    const inner = transport(args);
    return {
      ...inner,
      request: (async (call: { method: string; params?: unknown }, options?: unknown) => {
        const result = await (inner.request as (c: unknown, o?: unknown) => Promise<unknown>)(call, options);
        if (
          result === null &&
          (call.method === "eth_getBlockByNumber" || call.method === "eth_getBlockByHash")
        ) {
          throw new Error("block not found on this endpoint (it lags)");
        }
        return result;
      }) as typeof inner.request,
    };
  };
}

const callerSignal = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `fn` with every RPC request it makes (through a client of createChainClient) bound to `signal`: once it
 * aborts, a request in flight is abandoned and none is sent (viem throws the signal's reason). The sync engine
 * passes its run's deadline (lib/sync/deadline.ts), so that no request outlives the run.
 */
export const withRpcSignal = <T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> =>
  callerSignal.run(signal, fn);

function withCallerSignal(transport: Transport): Transport {
  return (args) => {
    const inner = transport(args);
    return {
      ...inner,
      request: ((call: unknown, options?: Record<string, unknown>) => {
        const signal = callerSignal.getStore();
        return (inner.request as (c: unknown, o?: unknown) => Promise<unknown>)(
          call,
          signal ? { ...options, signal } : options,
        );
      }) as typeof inner.request,
    };
  };
}
