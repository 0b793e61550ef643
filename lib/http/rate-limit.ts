import { Ratelimit } from "@upstash/ratelimit";
import { type Config, getConfig } from "../config.js";
import { log } from "../log.js";
import { trustedClientIp } from "./client-ip.js";
import { ApiError } from "./errors.js";
import { createMemoryStore } from "./rate-limit-memory.js";
import { defaultPolicy, type LimitPolicy } from "./rate-limit-policy.js";
import type { RateLimitBackend } from "./rate-limit-store.js";
import { createTcpStore, redact } from "./rate-limit-tcp.js";

/**
 * Rate limiting of the public endpoints: a 60-second sliding window per client (lib/http/rate-limit-policy.ts),
 * computed by `@upstash/ratelimit` against one of three stores (rate-limit-store.ts):
 * Upstash REST when UPSTASH_REDIS_REST_URL/TOKEN are set, else a TCP Redis when REDIS_URL is set, else in process.
 *
 * It never turns a store outage into a site outage: an error or a slow answer lets the request through (fail
 * open), is logged, and is counted (rateLimitFailures()).
 */
const WINDOW_SECONDS = 60;
/** The longest the limiter may delay a request; after that the request passes (the library's own race). */
const STORE_TIMEOUT_MS = 1000;

/** A counted request; `reset` is when the current window ends (epoch milliseconds). */
type Counted<S extends "allowed" | "limited"> = {
  state: S;
  tier: string;
  limit: number;
  remaining: number;
  reset: number;
};

export type RateLimitOutcome =
  | { state: "off" }
  | { state: "failed-open"; reason: string }
  | Counted<"allowed">
  | Counted<"limited">;

export type RateLimiter = {
  backend: RateLimitBackend["kind"];
  check(request: Request): Promise<RateLimitOutcome>;
  close(): Promise<void>;
};

const failures = { count: 0, last: undefined as string | undefined, lastAt: undefined as string | undefined };
/** When the store last answered (epoch ms): a store that is back says so at once, not a minute later. */
let lastAnsweredAt = 0;
let lastLogged = 0;
let suppressed = 0;

/**
 * How often the limiter let a request through because its store failed, process-wide (for health/metrics), and
 * whether it has answered since the last failure (`recovered`).
 */
export function rateLimitFailures(): {
  count: number;
  last: string | undefined;
  lastAt: string | undefined;
  recovered: boolean;
} {
  const recovered = failures.lastAt !== undefined && lastAnsweredAt >= Date.parse(failures.lastAt);
  return { ...failures, recovered };
}

function recordFailure(backend: string, reason: string): void {
  failures.count++;
  failures.last = reason;
  failures.lastAt = new Date().toISOString();
  // One line per 10 s at most, carrying how many were not logged, so an outage cannot flood the logs.
  const now = Date.now();
  if (now - lastLogged < 10_000) {
    suppressed++;
    return;
  }
  log("warn", "rate limiter failed open", { backend, reason, failures: failures.count, suppressed });
  lastLogged = now;
  suppressed = 0;
}

/** Picks the store the configuration asks for. Upstash wins over REDIS_URL: production configures Upstash. */
export function createBackend(config: Config): RateLimitBackend {
  if (config.upstash) {
    // Imported here, not at the top: only deployments that use Upstash load it.
    const store = createUpstashStore(config.upstash);
    return { kind: "upstash", store, close: async () => {} };
  }
  if (config.redisUrl) {
    const url = config.redisUrl;
    const store = createTcpStore(url, {
      onError: (error) => recordConnectionError(url, error),
    });
    return { kind: "redis", store, close: () => store.close() };
  }
  if (config.onVercel) {
    log("warn", "rate limiter: neither UPSTASH_REDIS_REST_URL/TOKEN nor REDIS_URL is set", {
      effect:
        "limits are counted per serverless instance in memory, so the effective limit is higher than configured",
      fix: "set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN",
    });
  }
  return { kind: "memory", store: createMemoryStore(), close: async () => {} };
}

function createUpstashStore(upstash: { url: string; token: string }): RateLimitBackend["store"] {
  let client: Promise<import("@upstash/redis").Redis> | undefined;
  const redis = () => {
    client ??= import("@upstash/redis").then(
      // One quick retry: the limiter fails open rather than holding a request through a long backoff.
      ({ Redis }) =>
        new Redis({ url: upstash.url, token: upstash.token, retry: { retries: 1, backoff: () => 50 } }),
    );
    return client;
  };
  return {
    evalsha: async (sha, keys, args) => (await redis()).evalsha(sha, keys, args),
    scriptLoad: async (script) => (await redis()).scriptLoad(script),
  };
}

let lastConnectionLog = 0;
function recordConnectionError(url: string, error: Error): void {
  const now = Date.now();
  if (now - lastConnectionLog < 10_000) return;
  lastConnectionLog = now;
  log("warn", "rate limiter: Redis connection error", { redis: redact(url), error: error.message });
}

/** A limiter over the given configuration; `backend` and `policy` are injectable (tests, future key tiers). */
export function createRateLimiter(
  config: Config,
  deps: { backend?: RateLimitBackend; policy?: LimitPolicy } = {},
): RateLimiter {
  const policy = deps.policy ?? defaultPolicy(config);
  let backend = deps.backend;
  // One library instance per (tier, limit): the window size is fixed per instance.
  const limiters = new Map<string, Ratelimit>();
  const limiterFor = (tier: string, perMinute: number): Ratelimit => {
    const key = `${tier}:${perMinute}`;
    let limiter = limiters.get(key);
    if (!limiter) {
      backend ??= createBackend(config);
      limiter = new Ratelimit({
        // The store implements exactly what the limiter calls (see rate-limit-store.ts).
        redis: backend.store as unknown as ConstructorParameters<typeof Ratelimit>[0]["redis"],
        limiter: Ratelimit.slidingWindow(perMinute, `${WINDOW_SECONDS} s`),
        prefix: `${config.rateLimitPrefix}:${tier}`,
        timeout: STORE_TIMEOUT_MS,
        analytics: false,
        // The library's in-process memo of callers already refused until their reset: saves a round trip each.
        ephemeralCache: new Map(),
      });
      limiters.set(key, limiter);
    }
    return limiter;
  };

  return {
    get backend() {
      backend ??= createBackend(config);
      return backend.kind;
    },
    async check(request) {
      const caller = {
        ip: trustedClientIp(request, { onVercel: config.onVercel }),
        apiKey: request.headers.get("x-api-key") ?? undefined,
      };
      const decision = policy(caller);
      if (!decision) return { state: "off" };
      const limiter = limiterFor(decision.tier, decision.perMinute);
      try {
        const result = await limiter.limit(decision.identifier);
        if (result.reason === "timeout") {
          recordFailure(backend?.kind ?? "?", `store did not answer within ${STORE_TIMEOUT_MS} ms`);
          return { state: "failed-open", reason: "timeout" };
        }
        lastAnsweredAt = Date.now();
        const counted = {
          tier: decision.tier,
          limit: result.limit,
          remaining: Math.max(0, result.remaining),
          reset: result.reset,
        };
        return result.success ? { state: "allowed", ...counted } : { state: "limited", ...counted };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        recordFailure(backend?.kind ?? "?", reason);
        return { state: "failed-open", reason };
      }
    },
    async close() {
      await backend?.close();
    },
  };
}

let current: { config: Config; limiter: RateLimiter } | undefined;

/** The process-wide limiter for the current configuration (rebuilt when tests or the dev server replace it). */
export function getRateLimiter(): RateLimiter {
  const config = getConfig();
  if (current?.config !== config) {
    const previous = current;
    current = { config, limiter: createRateLimiter(config) };
    previous?.limiter.close().catch(() => {});
  }
  return current.limiter;
}

/**
 * The rate-limit headers of a limited or allowed response: the IETF draft's `RateLimit-*` and the older
 * `X-RateLimit-*` with the same values. Reset is in seconds from now (delta seconds, not an epoch), as is
 * `Retry-After` on a 429.
 */
export function rateLimitHeaders(outcome: RateLimitOutcome, now = Date.now()): Record<string, string> {
  if (outcome.state !== "allowed" && outcome.state !== "limited") return {};
  const reset = String(Math.max(0, Math.ceil((outcome.reset - now) / 1000)));
  const headers: Record<string, string> = {
    "ratelimit-limit": String(outcome.limit),
    "ratelimit-remaining": String(outcome.remaining),
    "ratelimit-reset": reset,
    "ratelimit-policy": `${outcome.limit};w=${WINDOW_SECONDS}`,
    "x-ratelimit-limit": String(outcome.limit),
    "x-ratelimit-remaining": String(outcome.remaining),
    "x-ratelimit-reset": reset,
  };
  if (outcome.state === "limited") headers["retry-after"] = String(Math.max(1, Number(reset)));
  return headers;
}

/** The 429 of the spec: "too many requests", with the headers that say when to come back. */
export function tooManyRequests(
  outcome: Counted<"limited">,
  headers: Record<string, string> = rateLimitHeaders(outcome),
): ApiError {
  return new ApiError(
    429,
    "TooManyRequests",
    `Too many requests: the limit is ${outcome.limit} requests per ${WINDOW_SECONDS} seconds per client. Retry after ${headers["retry-after"]} seconds.`,
    { headers },
  );
}
