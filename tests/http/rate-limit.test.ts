import { randomBytes } from "node:crypto";
import { get as httpGet, type IncomingHttpHeaders } from "node:http";
import { createClient } from "@redis/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig, setConfig } from "../../lib/config.js";
import {
  createBackend,
  createRateLimiter,
  getRateLimiter,
  rateLimitFailures,
} from "../../lib/http/rate-limit.js";
import { createMemoryStore } from "../../lib/http/rate-limit-memory.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { blackHole, closedPort } from "../helpers/net.js";
import { restrictedPaths } from "../helpers/routes.js";
import { startServerProcess } from "../helpers/serve.js";
import { startUpstashBridge, type UpstashBridge } from "../helpers/upstash-bridge.js";

/**
 * The public rate limit end to end, through the real routing, on every backend the environment can reach: with
 * REDIS_URL (CI's PostgreSQL pass), the TCP Redis backend and the production one, Upstash's REST protocol
 * (`@upstash/redis`, as UPSTASH_REDIS_REST_URL/TOKEN select it) through a REST→Redis bridge to that same Redis
 * (tests/helpers/upstash-bridge.ts); without it, the in-process store. Every run uses its own key prefix so
 * concurrent runs against one Redis never share counters.
 */
const REDIS_URL = process.env.REDIS_URL;
const RUN = `lpqs-test:${process.pid}:${randomBytes(4).toString("hex")}`;
let app: TestApp;
let upstash: UpstashBridge | undefined;
let prefixes = 0;

type Backend = { kind: "memory" | "redis" | "upstash"; env(): Record<string, string> };
const BACKENDS: Backend[] = REDIS_URL
  ? [
      { kind: "redis", env: () => ({ REDIS_URL }) },
      // REDIS_URL stays set beside it, as it may in a deployment: Upstash wins.
      { kind: "upstash", env: () => ({ REDIS_URL, ...upstash!.env }) },
    ]
  : [{ kind: "memory", env: () => ({}) }];

/** A GET from a chosen local address (the servers key clients by the connection's address); its headers. */
function getFrom(url: string, localAddress: string): Promise<IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    httpGet(url, { localAddress }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.headers));
    }).on("error", reject);
  });
}

/** A fresh configuration (and so a fresh limiter) with its own key prefix, on the given backend. */
function configure(env: Record<string, string> = {}, backend: Backend = BACKENDS[0]!): string {
  const prefix = `${RUN}:${++prefixes}`;
  setConfig(
    loadConfig({
      LOG_LEVEL: "silent",
      RATE_LIMIT_PER_MINUTE: "100",
      RATE_LIMIT_PREFIX: prefix,
      ...backend.env(),
      ...env,
    }),
  );
  return prefix;
}

const from = (ip: string, headers: Record<string, string> = {}) => ({
  headers: { "x-real-ip": ip, ...headers },
});

/**
 * The sliding window weighs the previous minute's count; a burst that straddles a minute boundary is therefore
 * allowed one or two more requests. Start bursts well inside a window so the counts are exact.
 */
async function awayFromWindowEdge(needMs = 12_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}

beforeAll(async () => {
  app = await createTestApp({ RATE_LIMIT_PER_MINUTE: "0" });
  if (REDIS_URL) upstash = await startUpstashBridge(REDIS_URL);
});
afterAll(async () => {
  await getRateLimiter().close();
  await app.close();
  await upstash?.close();
});

describe.each(BACKENDS)("rate limit ($kind)", (backend) => {
  it("uses the backend the environment selects", () => {
    configure({}, backend);
    expect(getRateLimiter().backend).toBe(backend.kind);
  });

  it("lets 100 requests through, refuses the 101st with 429 and Retry-After; another IP is unaffected", async () => {
    const prefix = configure({}, backend);
    await awayFromWindowEdge();
    const ip = "203.0.113.7";
    for (let i = 1; i <= 100; i++) {
      const res = await app.request("/api/v0/config", from(ip));
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe("100");
      expect(res.headers.get("ratelimit-remaining")).toBe(String(100 - i));
      expect(res.headers.get("x-ratelimit-limit")).toBe("100");
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(100 - i));
      const reset = Number(res.headers.get("ratelimit-reset"));
      expect(reset).toBeGreaterThanOrEqual(0);
      expect(reset).toBeLessThanOrEqual(60);
      expect(res.headers.get("x-ratelimit-reset")).toBe(res.headers.get("ratelimit-reset"));
      expect(res.headers.get("retry-after")).toBeNull();
    }
    const refused = await app.request("/api/v0/config", from(ip));
    expect(refused.status).toBe(429);
    const retryAfter = refused.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    // Browsers must be able to read the 429 and its headers.
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("access-control-expose-headers")).toContain("Retry-After");
    const body = await refused.json();
    // The message and the header come from one computation, so they always agree.
    expect(body.message).toContain(`Retry after ${retryAfter} seconds`);
    expect(body).toMatchObject({ error: "Too Many Requests", code: "TooManyRequests" });
    expect(body.message).toMatch(/too many requests/i);

    const other = await app.request("/api/v0/config", from("203.0.113.8"));
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit-remaining")).toBe("99");

    if (backend.kind !== "memory") {
      // The counters really live in Redis, under this run's prefix (through the bridge, for Upstash).
      const redis = createClient({ url: REDIS_URL });
      await redis.connect();
      try {
        const keys = await redis.keys(`${prefix}:*`);
        expect(keys.some((k) => k.includes("203.0.113.7"))).toBe(true);
        expect(keys.some((k) => k.includes("203.0.113.8"))).toBe(true);
      } finally {
        redis.destroy();
      }
    }
  });

  it("counts per client across every public endpoint, 404s included, and never trusts X-Forwarded-For", async () => {
    configure({ RATE_LIMIT_PER_MINUTE: "6" }, backend);
    await awayFromWindowEdge();
    const ip = "198.51.100.20";
    const paths = [
      "/api/v0/config",
      "/health",
      "/",
      "/api/v0/location-proofs?limit=1",
      "/graphql?query=%7BlocationProofsCount%7D",
      "/api/nope",
    ];
    const statuses = [];
    for (const path of paths) statuses.push((await app.request(path, from(ip))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    // A forged X-Forwarded-For (and a different API key) does not make a new client.
    for (const path of [...paths, "/api/v0/location-proofs/stats", "/api/v0/location-records"]) {
      const res = await app.request(path, from(ip, { "x-forwarded-for": "192.0.2.55", "x-api-key": "k-1" }));
      expect(res.status, path).toBe(429);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    }
  });

  it("accepts X-API-Key and counts it like any other request", async () => {
    configure({ RATE_LIMIT_PER_MINUTE: "2" }, backend);
    await awayFromWindowEdge();
    const headers = from("192.0.2.77", { "x-api-key": "any-key" });
    expect((await app.request("/api/v0/config", headers)).status).toBe(200);
    expect((await app.request("/api/v0/config", headers)).status).toBe(200);
    expect((await app.request("/api/v0/config", headers)).status).toBe(429);
  });

  it("limits an IPv6 client by its /64", async () => {
    configure({ RATE_LIMIT_PER_MINUTE: "2" }, backend);
    await awayFromWindowEdge();
    expect((await app.request("/api/v0/config", from("2001:db8:1:2::1"))).status).toBe(200);
    expect((await app.request("/api/v0/config", from("2001:db8:1:2:ffff::9"))).status).toBe(200);
    expect((await app.request("/api/v0/config", from("2001:db8:1:2:abcd::5"))).status).toBe(429);
    expect((await app.request("/api/v0/config", from("2001:db8:1:3::1"))).status).toBe(200);
  });

  it("RATE_LIMIT_PER_MINUTE=0 turns limiting off (no headers, no 429)", async () => {
    configure({ RATE_LIMIT_PER_MINUTE: "0" }, backend);
    for (let i = 0; i < 120; i++) {
      const res = await app.request("/api/v0/config", from("203.0.113.99"));
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBeNull();
    }
  });

  it("does not limit CORS preflights or the restricted endpoints", async () => {
    configure({ RATE_LIMIT_PER_MINUTE: "1", CRON_SECRET: "s3cret" }, backend);
    await awayFromWindowEdge();
    const ip = "203.0.113.50";
    expect((await app.request("/api/v0/config", from(ip))).status).toBe(200);
    expect((await app.request("/api/v0/config", from(ip))).status).toBe(429);
    const preflight = await app.request("/api/v0/config", { method: "OPTIONS", ...from(ip) });
    expect(preflight.status).toBe(204);
    // Every route declared restricted answers 401 without the bearer token: refused by auth, never counted.
    for (const path of restrictedPaths()) {
      let res = await app.request(path, { method: "POST", ...from(ip) });
      if (res.status === 405) res = await app.request(path, from(ip));
      expect(res.status, path).toBe(401);
      expect(res.headers.get("ratelimit-limit"), path).toBeNull();
    }
  });
});

describe("fail open", () => {
  it("serves every request when Redis is unreachable (closed port), and counts the failures", async () => {
    const port = await closedPort();
    configure({ REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: "3" });
    expect(getRateLimiter().backend).toBe("redis");
    const before = rateLimitFailures().count;
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      const res = await app.request("/api/v0/config", from("203.0.113.60"));
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBeNull();
    }
    // The first request waits at most the short first-connect wait; the rest fail fast.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(rateLimitFailures().count - before).toBe(20);
    expect(rateLimitFailures().last).toMatch(/not connected/);
    // /health stays 200 (a limiter outage is no site outage) but says the limiter is failing open.
    const health = await app.request("/health", from("203.0.113.60"));
    expect(health.status).toBe(200);
    const { checks } = await health.json();
    expect(checks.rate_limiter).toMatchObject({ status: "failing-open", backend: "redis" });
    expect(checks.rate_limiter.failures).toBeGreaterThanOrEqual(20);
    expect(JSON.stringify(checks)).not.toMatch(/127\.0\.0\.1|not connected/);
  });

  it("serves requests when Redis accepts connections but never answers (timeout)", async () => {
    const hole = await blackHole();
    const { port } = hole;
    try {
      configure({ REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: "3" });
      const before = rateLimitFailures().count;
      for (let i = 0; i < 4; i++) {
        const started = performance.now();
        const res = await app.request("/api/v0/config", from("203.0.113.61"));
        expect(res.status).toBe(200);
        expect(performance.now() - started).toBeLessThan(2500);
      }
      expect(rateLimitFailures().count - before).toBe(4);
    } finally {
      await getRateLimiter().close();
      hole.close();
    }
  });
});

/** The Upstash backend through the bridge, which these tests stall, close and bring back. */
const UPSTASH = BACKENDS.find((b) => b.kind === "upstash");

describe.skipIf(!UPSTASH)("Upstash failing, and back (needs REDIS_URL)", () => {
  const health = async (ip: string) =>
    (await (await app.request("/health", from(ip))).json()).checks.rate_limiter;

  it.each([
    { fault: "stalls (requests accepted, never answered)", inject: () => upstash!.stall() },
    { fault: "refuses connections (port closed)", inject: () => upstash!.refuse() },
  ])(
    "while the endpoint $fault: every request served, /health says failing-open; then limits again",
    {
      timeout: 60_000,
    },
    async ({ inject }) => {
      configure({ RATE_LIMIT_PER_MINUTE: "3" }, UPSTASH);
      await awayFromWindowEdge(15_000);
      const [ip, during, after] = ["203.0.113.80", "203.0.113.81", "203.0.113.82"];
      for (let i = 0; i < 3; i++) expect((await app.request("/api/v0/config", from(ip))).status).toBe(200);
      expect((await app.request("/api/v0/config", from(ip))).status).toBe(429);
      expect(await health(after)).toMatchObject({ status: "ok", backend: "upstash" });

      await inject();
      const before = rateLimitFailures().count;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const res = await app.request("/api/v0/config", from(during));
        expect(res.status).toBe(200);
        expect(res.headers.get("ratelimit-limit")).toBeNull();
        // The limiter gives the store 1 s (and the client one quick retry), then lets the request through.
        expect(performance.now() - started).toBeLessThan(2500);
      }
      expect(rateLimitFailures().count - before).toBe(5);
      const failing = await health(during);
      expect(failing).toMatchObject({ status: "failing-open", backend: "upstash" });
      expect(failing.failures).toBeGreaterThanOrEqual(5);

      await upstash!.resume();
      const back = await app.request("/api/v0/config", from(after));
      expect(back.status).toBe(200);
      expect(back.headers.get("ratelimit-remaining")).toBe("1"); // the health check above counted too
      expect(await health(after)).toMatchObject({ status: "ok", backend: "upstash" });
      expect((await app.request("/api/v0/config", from(after))).status).toBe(429);
    },
  );

  it("fails open when the endpoint refuses the token (401)", async () => {
    configure({ UPSTASH_REDIS_REST_TOKEN: "not-the-token", RATE_LIMIT_PER_MINUTE: "1" }, UPSTASH);
    const before = rateLimitFailures().count;
    for (let i = 0; i < 3; i++)
      expect((await app.request("/api/v0/config", from("203.0.113.83"))).status).toBe(200);
    expect(rateLimitFailures().count - before).toBe(3);
    expect(rateLimitFailures().last).toMatch(/Unauthorized/);
    expect(await health("203.0.113.83")).toMatchObject({ status: "failing-open", backend: "upstash" });
  });
});

describe("sliding window semantics", () => {
  /**
   * The same scenario on the in-process store and (with REDIS_URL) on Redis and Upstash: the previous minute's count weighs on
   * the current one in proportion to the part of the window still to run. Only Date is faked (the library passes
   * its "now" to the store); I/O and Redis run for real.
   */
  async function scenario(kind: Backend["kind"]): Promise<boolean[][]> {
    const config = loadConfig({
      LOG_LEVEL: "silent",
      RATE_LIMIT_PER_MINUTE: "10",
      RATE_LIMIT_PREFIX: `${RUN}:window:${kind}`,
      ...BACKENDS.find((b) => b.kind === kind)?.env(),
    });
    const backend =
      kind === "memory" ? { kind, store: createMemoryStore(), close: async () => {} } : createBackend(config);
    const limiter = createRateLimiter(config, { backend });
    const request = () => new Request("http://localhost/x", { headers: { "x-real-ip": "192.0.2.200" } });
    const burst = async (n: number) => {
      const out: boolean[] = [];
      for (let i = 0; i < n; i++) out.push((await limiter.check(request())).state === "allowed");
      return out;
    };
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 5 * 60_000;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(minute + 30_000); // half-way through window W
      const a = await burst(11); // 10 allowed, the 11th refused
      vi.setSystemTime(minute + 60_000 + 15_000); // 25% into W+1: W weighs floor(0.75 × 10) = 7
      const b = await burst(3); // 3 allowed (7 + 3 = 10), no refusal yet
      vi.setSystemTime(minute + 60_000 + 45_000); // 75% into W+1: W weighs floor(0.25 × 10) = 2, plus 3 used
      const c = await burst(6); // 5 allowed, the 6th refused
      return [a, b, c];
    } finally {
      vi.useRealTimers();
      await limiter.close();
    }
  }

  const expected = [
    [...Array(10).fill(true), false],
    [true, true, true],
    [...Array(5).fill(true), false],
  ];

  it("in process: the previous window weighs in proportionally", async () => {
    expect(await scenario("memory")).toEqual(expected);
  });

  it.skipIf(!REDIS_URL)("on Redis: the same answers, request for request", async () => {
    expect(await scenario("redis")).toEqual(expected);
  });

  it.skipIf(!REDIS_URL)("on Upstash (REST): the same answers, request for request", async () => {
    expect(await scenario("upstash")).toEqual(expected);
  });
});

describe("backend selection", () => {
  it("on Vercel with neither Upstash nor REDIS_URL: in-process, with a clear warning", async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      configure({
        VERCEL: "1",
        DATABASE_URL: "postgres://postgres@127.0.0.1:5432/unused",
        LOG_LEVEL: "warn",
        REDIS_URL: "",
        RATE_LIMIT_PER_MINUTE: "1",
      });
      expect(getRateLimiter().backend).toBe("memory");
    } finally {
      process.stderr.write = write;
    }
    const warning = lines.map((l) => JSON.parse(l)).find((l) => l.msg.startsWith("rate limiter:"));
    expect(warning).toMatchObject({ level: "warn" });
    expect(warning.msg).toMatch(/UPSTASH_REDIS_REST_URL/);
    expect(warning.fix).toMatch(/UPSTASH_REDIS_REST_URL/);
    // Still limits, per instance.
    expect((await app.request("/api/v0/config", from("203.0.113.70"))).status).toBe(200);
    expect((await app.request("/api/v0/config", from("203.0.113.70"))).status).toBe(429);
  });

  it("Upstash wins over REDIS_URL, and an unreachable Upstash fails open too", async () => {
    const port = await closedPort();
    configure({
      UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${port}`,
      UPSTASH_REDIS_REST_TOKEN: "token",
      REDIS_URL: "redis://127.0.0.1:6379",
      RATE_LIMIT_PER_MINUTE: "1",
    });
    expect(getRateLimiter().backend).toBe("upstash");
    const before = rateLimitFailures().count;
    for (let i = 0; i < 3; i++) {
      const res = await app.request("/api/v0/config", from("203.0.113.71"));
      expect(res.status).toBe(200);
    }
    expect(rateLimitFailures().count - before).toBe(3);
  });
});

// Needs a Redis both processes reach: skipped without REDIS_URL (CI sets it on its PostgreSQL pass).
describe.skipIf(!REDIS_URL).each(BACKENDS)("two server processes on $kind (needs REDIS_URL)", (backend) => {
  it("share one limit", { timeout: 90_000 }, async () => {
    const prefix = `${RUN}:processes:${backend.kind}`;
    const env = { ...backend.env(), RATE_LIMIT_PER_MINUTE: "100", RATE_LIMIT_PREFIX: prefix };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    try {
      expect(a.pid).not.toBe(b.pid);
      // A fresh process connects to its store on its first request, which may pass uncounted (the limiter waits
      // for the connection only briefly, and the command may still land later): warm both up as another client
      // (another loopback source address, so another key) until each has counted one.
      for (const server of [a, b]) {
        let counted = false;
        for (let tries = 0; tries < 20 && !counted; tries++) {
          counted =
            (await getFrom(`${server.url}/api/v0/config`, "127.0.0.2"))["ratelimit-remaining"] !== undefined;
          if (!counted) await new Promise((r) => setTimeout(r, 100));
        }
        expect(counted).toBe(true);
      }
      await awayFromWindowEdge();
      let served = 0;
      // Alternately: neither process alone sees more than half the limit, yet each answer counts what both served...
      while (served < 100) {
        for (const server of [a, b]) {
          const res = await fetch(`${server.url}/api/v0/config`);
          expect(res.status).toBe(200);
          expect(res.headers.get("ratelimit-remaining")).toBe(String(100 - ++served));
          await res.arrayBuffer();
        }
      }
      // ...and both now refuse, because the count is shared.
      for (const server of [a, b]) {
        const res = await fetch(`${server.url}/api/v0/config`);
        expect(res.status).toBe(429);
        expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(res.headers.get("ratelimit-remaining")).toBe("0");
        expect((await res.json()).code).toBe("TooManyRequests");
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
