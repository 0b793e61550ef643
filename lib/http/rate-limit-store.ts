/**
 * The part of the `@upstash/redis` client that `@upstash/ratelimit`'s single-region sliding window actually calls
 * (read in node_modules/@upstash/ratelimit/dist/index.js, 2.0.5): `evalsha(hash, keys, args)`, and on a NOSCRIPT
 * error `scriptLoad(script)` followed by `evalsha` again. Nothing else is reached unless analytics, the deny list
 * or multi-region mode are enabled, which this service does not use.
 *
 * Three stores implement it: Upstash's REST client itself (production), a TCP adapter over node-redis
 * (rate-limit-tcp.ts, for REDIS_URL), and an in-process emulation of the one script (rate-limit-memory.ts).
 * The limiter, its keys, windows and arithmetic are the library's in all three.
 */
export type ScriptStore = {
  evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown>;
  scriptLoad(script: string): Promise<string>;
};

export type RateLimitBackend = {
  kind: "upstash" | "redis" | "memory";
  store: ScriptStore;
  /** Releases connections (the TCP client); a no-op for the others. */
  close(): Promise<void>;
};

/** Script arguments travel as strings, as they do on the wire to Redis. */
export const argString = (value: unknown): string =>
  value === null || value === undefined ? "" : String(value);
