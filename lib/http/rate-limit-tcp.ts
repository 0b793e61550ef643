import type { createClient as CreateClient } from "@redis/client";
import { argString, type ScriptStore } from "./rate-limit-store.js";

/**
 * Lets `@upstash/ratelimit` talk to a plain TCP Redis (REDIS_URL: local runs and CI) through node-redis, the
 * client Redis maintains. The limiter needs only EVALSHA and SCRIPT LOAD (see rate-limit-store.ts), so the adapter
 * is a few lines and the limiter — its Lua script, keys and arithmetic — is byte for byte the one production runs
 * against Upstash. (Why not another library: a second limiter implementation would have its own semantics to keep
 * in step; why 2.0.5: later versions prefix their scripts with `#!lua flags=allow-key-locking`, which Redis 7.0
 * rejects.)
 *
 * Built to fail fast, because the limiter fails open: no offline queue (a command while disconnected rejects at
 * once instead of piling up), a short connect timeout, reconnection with capped backoff in the background, and at
 * most `firstConnectWaitMs` spent waiting for the very first connection.
 */
export function createTcpStore(
  url: string,
  options: { firstConnectWaitMs?: number; onError?: (error: Error) => void } = {},
): ScriptStore & { close(): Promise<void> } {
  type Client = ReturnType<typeof CreateClient>;
  let client: Client | undefined;
  let firstConnect: Promise<void> | undefined;
  let closed = false;

  const ready = async (): Promise<Client> => {
    if (client?.isReady) return client;
    if (!firstConnect) {
      firstConnect = (async () => {
        // Loaded on first use: functions on Upstash never load node-redis (cold start).
        const { createClient } = await import("@redis/client");
        const c: Client = createClient({
          url,
          disableOfflineQueue: true,
          socket: {
            connectTimeout: 1000,
            reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 5000),
          },
        });
        // node-redis emits connection errors as events; unhandled, they would crash the process.
        c.on("error", (error: Error) => options.onError?.(error));
        client = c;
        if (closed) return;
        const connecting = c.connect().then(
          () => undefined,
          () => undefined,
        );
        // Every caller waits on this one bounded promise, so an unreachable Redis costs the first requests at
        // most firstConnectWaitMs, and later ones nothing (they find the client not ready and fail fast).
        await Promise.race([connecting, sleep(options.firstConnectWaitMs ?? 500)]);
      })();
    }
    await firstConnect;
    if (closed || !client?.isReady) throw new Error(`Redis at ${redact(url)} is not connected`);
    return client;
  };

  return {
    async evalsha(sha, keys, args) {
      return (await ready()).evalSha(sha, { keys, arguments: args.map(argString) });
    },
    async scriptLoad(script) {
      return String(await (await ready()).scriptLoad(script));
    },
    async close() {
      closed = true;
      if (client?.isOpen) client.destroy();
    },
  };
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
  });

/** A URL fit for a log line: the password is never printed. */
export const redact = (url: string): string => url.replace(/\/\/([^@/]*)@/, "//***@");
