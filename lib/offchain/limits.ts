import type { Config } from "../config.js";
import { rateLimitKeyFor, trustedClientIp } from "../http/client-ip.js";
import { createRateLimiter, type RateLimiter, tooManyRequests } from "../http/rate-limit.js";
import type { PublishSettings } from "./settings.js";

/**
 * Publications per 60-second sliding window, per client and per attester, on top of the public rate limit (which
 * every request, a publication too, has already passed in lib/http/route.ts). The same limiter as the public one
 * (lib/http/rate-limit.ts: @upstash/ratelimit over Upstash, Redis or memory, failing open on a store outage), with a
 * policy of its own: the bucket is named by the request's X-API-Key header, which these synthetic requests set to
 * the client's or the attester's key. Two limiters per configuration, built once.
 */
type Limiters = { client: RateLimiter; attester: RateLimiter };
const built = new WeakMap<Config, Limiters>();

function limiterFor(config: Config, tier: string, perMinute: number): RateLimiter {
  return createRateLimiter(config, {
    policy: (caller) =>
      perMinute > 0 && caller.apiKey ? { tier, identifier: caller.apiKey, perMinute } : undefined,
  });
}

const keyed = (key: string) => new Request("http://publish.invalid/", { headers: { "x-api-key": key } });

/** Counts one publication against the client's and the attester's windows; a 429 when either is full. */
export async function countPublication(
  config: Config,
  settings: PublishSettings,
  request: Request,
  attester: string,
): Promise<void> {
  let limiters = built.get(config);
  if (!limiters) {
    limiters = {
      client: limiterFor(config, "publish-client", settings.perMinuteClient),
      attester: limiterFor(config, "publish-attester", settings.perMinuteAttester),
    };
    built.set(config, limiters);
  }
  const ip = trustedClientIp(request, { onVercel: config.onVercel });
  for (const [limiter, key, what] of [
    [limiters.client, `ip:${rateLimitKeyFor(ip)}`, "client"],
    [limiters.attester, `attester:${attester.toLowerCase()}`, "attester"],
  ] as const) {
    const outcome = await limiter.check(keyed(key));
    if (outcome.state === "limited") {
      const error = tooManyRequests(outcome);
      error.message = `Too many publications: the limit is ${outcome.limit} per 60 seconds per ${what}. Retry after ${error.extra.headers?.["retry-after"]} seconds.`;
      throw error;
    }
  }
}
