import type { Config } from "../config.js";
import { rateLimitKeyFor } from "./client-ip.js";

/** What the limiter knows about a caller. */
export type Caller = {
  /** the trusted client IP (lib/http/client-ip.ts), undefined when no trusted header was present */
  ip: string | undefined;
  /** the X-API-Key header, if any: accepted, not required, and (today) not granting anything */
  apiKey: string | undefined;
};

/** Which bucket a request counts against and how big that bucket is; undefined means "not limited". */
export type LimitDecision = {
  /** a name for the class of caller, logged and used in the key, e.g. "anonymous" */
  tier: string;
  /** the bucket within the tier (per IP today; per key for a keyed tier) */
  identifier: string;
  /** requests per 60-second sliding window */
  perMinute: number;
};

export type LimitPolicy = (caller: Caller) => LimitDecision | undefined;

/**
 * Today's policy, as the spec states it: every request is anonymous and limited per client IP to
 * RATE_LIMIT_PER_MINUTE (0 turns limiting off). An X-API-Key is accepted and ignored.
 *
 * Adding per-key limits later is a change here only: look the key up (e.g. a table of hashed keys with a tier),
 * and return `{ tier: "keyed", identifier: "key:" + sha256(key), perMinute: tiers.keyed }` for a valid key, falling
 * back to the anonymous decision otherwise. The limiter keeps one sliding window per distinct `perMinute`, so a
 * tier's limit is configuration, not code.
 */
export function defaultPolicy(config: Pick<Config, "rateLimitPerMinute">): LimitPolicy {
  const tiers = { anonymous: config.rateLimitPerMinute };
  return (caller) => {
    if (tiers.anonymous <= 0) return undefined;
    return { tier: "anonymous", identifier: `ip:${rateLimitKeyFor(caller.ip)}`, perMinute: tiers.anonymous };
  };
}
