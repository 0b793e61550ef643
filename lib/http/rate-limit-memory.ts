import { createHash } from "node:crypto";
import type { ScriptStore } from "./rate-limit-store.js";

/**
 * An in-process store for `@upstash/ratelimit`, for runs with neither Upstash nor REDIS_URL (the embedded default).
 *
 * Instead of a second limiter with its own arithmetic, this runs the library's own limiter and emulates, in
 * JavaScript, the one Lua script it sends: the single-region sliding window (GET current and previous window
 * counters, weight the previous one by the part of the window not yet elapsed, refuse at the limit, else INCRBY
 * and PEXPIRE). Keys, windows, the reset time and the ephemeral block cache stay the library's, so the semantics
 * match the Redis backends by construction. The script is recognised by its text when the library loads it; an
 * unknown script is an error (the limiter then fails open and says so), and tests/http/rate-limit.test.ts would fail.
 *
 * One process only: each serverless instance would count on its own, hence the warning on Vercel.
 */
export function createMemoryStore(now: () => number = Date.now): ScriptStore & { size(): number } {
  const values = new Map<string, { value: number; expiresAt: number }>();
  const scripts = new Map<string, ScriptKind>();
  let lastSweep = now();

  const get = (key: string): number => {
    const entry = values.get(key);
    if (!entry) return 0;
    if (entry.expiresAt <= now()) {
      values.delete(key);
      return 0;
    }
    return entry.value;
  };

  /** Expired counters are dropped at most once a second, so memory follows the number of active clients. */
  const sweep = () => {
    const t = now();
    if (t - lastSweep < 1000) return;
    lastSweep = t;
    for (const [key, entry] of values) if (entry.expiresAt <= t) values.delete(key);
  };

  const run = (kind: ScriptKind, keys: string[], args: unknown[]): unknown => {
    sweep();
    if (kind === "slidingWindowLimit") {
      const [currentKey, previousKey] = keys as [string, string];
      const tokens = Number(args[0]);
      const at = Number(args[1]);
      const window = Number(args[2]);
      const incrementBy = Number(args[3]);
      const current = get(currentKey);
      const previous = Math.floor((1 - (at % window) / window) * get(previousKey));
      if (previous + current >= tokens) return -1;
      const newValue = current + incrementBy;
      const existing = values.get(currentKey);
      // PEXPIRE only when the key is created, as the script does.
      const expiresAt =
        newValue === incrementBy || !existing ? now() + window * 2 + 1000 : existing.expiresAt;
      values.set(currentKey, { value: newValue, expiresAt });
      return tokens - (newValue + previous);
    }
    // slidingWindowRemaining
    const [currentKey, previousKey] = keys as [string, string];
    const at = Number(args[0]);
    const window = Number(args[1]);
    return Math.floor((1 - (at % window) / window) * get(previousKey)) + get(currentKey);
  };

  const load = (script: string): string => {
    const kind = classify(script);
    if (!kind)
      throw new Error("in-memory rate-limit store: unsupported script (only the sliding window is emulated)");
    const sha = sha1(script);
    scripts.set(sha, kind);
    return sha;
  };

  return {
    async evalsha(sha, keys, args) {
      const kind = scripts.get(sha);
      if (!kind) throw new Error("NOSCRIPT No matching script. Please use EVAL.");
      return run(kind, keys, args);
    },
    async scriptLoad(script) {
      return load(script);
    },
    size: () => values.size,
  };
}

type ScriptKind = "slidingWindowLimit" | "slidingWindowRemaining";

/** Recognises the library's sliding-window scripts by the statements that define them. */
function classify(script: string): ScriptKind | undefined {
  const text = script.replace(/\s+/g, " ");
  const slidingWindow =
    text.includes("local currentKey = KEYS[1]") &&
    text.includes("local previousKey = KEYS[2]") &&
    text.includes(
      "requestsInPreviousWindow = math.floor(( 1 - percentageInCurrent ) * requestsInPreviousWindow)",
    );
  if (!slidingWindow) return undefined;
  if (
    text.includes('redis.call("INCRBY", currentKey, incrementBy)') &&
    text.includes(">= tokens then return -1")
  ) {
    return "slidingWindowLimit";
  }
  if (text.includes("return requestsInPreviousWindow + requestsInCurrentWindow"))
    return "slidingWindowRemaining";
  return undefined;
}

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
