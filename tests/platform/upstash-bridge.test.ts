import { randomBytes } from "node:crypto";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstashBridge, type UpstashBridge } from "../helpers/upstash-bridge.js";

/**
 * The REST→Redis bridge (tests/helpers/upstash-bridge.ts) speaks Upstash's protocol as `@upstash/redis` — the
 * client production uses — expects it: single commands, the automatic pipeline, transactions, scripts, the base64
 * encoding, errors and authentication, against the CI Redis. The rate-limit suite relies on it
 * (tests/http/rate-limit.test.ts). Needs REDIS_URL.
 */
const REDIS_URL = process.env.REDIS_URL;
const key = (name: string) => `lpqs-test:upstash:${process.pid}:${randomBytes(3).toString("hex")}:${name}`;

describe.skipIf(!REDIS_URL)("Upstash REST bridge, driven by @upstash/redis", () => {
  let bridge: UpstashBridge;
  let redis: Redis;

  beforeAll(async () => {
    bridge = await startUpstashBridge(REDIS_URL!);
    redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it("runs commands and returns their values: strings (base64 on the wire), numbers, nil, arrays", async () => {
    const k = key("values");
    expect(await redis.set(k, "hé ✓ \u0000 bytes")).toBe("OK");
    expect(await redis.get(k)).toBe("hé ✓ \u0000 bytes");
    expect(await redis.incr(`${k}:n`)).toBe(1);
    expect(await redis.get(`${k}:missing`)).toBeNull();
    expect(await redis.mget(k, `${k}:missing`)).toEqual(["hé ✓ \u0000 bytes", null]);
    // JSON values round-trip as the client serialises them.
    await redis.set(`${k}:json`, { a: 1, b: [true, "x"] });
    expect(await redis.get(`${k}:json`)).toEqual({ a: 1, b: [true, "x"] });
    await redis.del(k, `${k}:n`, `${k}:json`);
  });

  it("batches concurrent commands into one /pipeline request, each with its own result or error", async () => {
    const k = key("pipeline");
    const before = bridge.commands.get("INCR") ?? 0;
    const pipelines = bridge.paths.get("/pipeline") ?? 0;
    // Writes only: the client batches reads and writes separately.
    const [a, b, c] = await Promise.allSettled([redis.incr(k), redis.incr(k), redis.hset(k, { f: 1 })]);
    expect(a).toEqual({ status: "fulfilled", value: 1 });
    expect(b).toEqual({ status: "fulfilled", value: 2 });
    // A failed command fails alone (WRONGTYPE), the others keep their results.
    expect(c.status).toBe("rejected");
    expect(String((c as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    expect((bridge.commands.get("INCR") ?? 0) - before).toBe(2);
    expect((bridge.paths.get("/pipeline") ?? 0) - pipelines).toBe(1);
    const explicit = await redis.pipeline().set(k, "v").get(k).exec();
    expect(explicit).toEqual(["OK", "v"]);
    await redis.del(k);
  });

  it("runs a transaction through /multi-exec", async () => {
    const k = key("multi");
    expect(await redis.multi().set(k, "1").incr(k).get(k).exec()).toEqual(["OK", 2, 2]);
    await redis.del(k);
  });

  it("answers NOSCRIPT for an unknown script, loads it, and runs it by hash (what the limiter does)", async () => {
    const script = "return {redis.call('INCRBY', KEYS[1], ARGV[1]), ARGV[2]}";
    const k = key("script");
    await expect(redis.evalsha("0".repeat(40), [k], ["1", "x"])).rejects.toThrow(/NOSCRIPT/);
    const sha = await redis.scriptLoad(script);
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await redis.evalsha(sha, [k], [5, "tag"])).toEqual([5, "tag"]);
    expect(await redis.eval(script, [k], [2, "again"])).toEqual([7, "again"]);
    await redis.del(k);
  });

  it("encodes strings in base64 when asked (all but the status OK), and sends them as they are otherwise", async () => {
    const k = key("wire");
    const raw = async (body: unknown[], encoding?: string) => {
      const res = await fetch(bridge.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${bridge.token}`,
          ...(encoding ? { "upstash-encoding": encoding } : {}),
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    expect(await raw(["SET", k, "hé"], "base64")).toEqual({ status: 200, body: { result: "OK" } });
    expect(await raw(["GET", k], "base64")).toEqual({
      status: 200,
      body: { result: Buffer.from("hé").toString("base64") },
    });
    expect(await raw(["GET", k])).toEqual({ status: 200, body: { result: "hé" } });
    expect(await raw(["PING"], "base64")).toEqual({ status: 200, body: { result: btoa("PONG") } });
    expect(await raw(["DEL", k], "base64")).toEqual({ status: 200, body: { result: 1 } });
  });

  it("refuses a wrong token with 401, and a command error with 400 and Redis's message", async () => {
    const wrong = new Redis({ url: bridge.url, token: "wrong", enableTelemetry: false, retry: false });
    await expect(wrong.get(key("x"))).rejects.toThrow(/Unauthorized/);
    const res = await fetch(bridge.url, {
      method: "POST",
      headers: { authorization: `Bearer ${bridge.token}` },
      body: JSON.stringify(["NOSUCHCOMMAND", "x"]),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/unknown command/i);
  });

  it("stalls (held, then answered on resume) and refuses (connection refused) on demand", async () => {
    const k = key("faults");
    const quick = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false, retry: false });
    bridge.stall();
    const pending = quick.incr(k);
    const raced = await Promise.race([pending, new Promise((r) => setTimeout(() => r("held"), 300))]);
    expect(raced).toBe("held");
    await bridge.resume();
    expect(await pending).toBe(1);
    await bridge.refuse();
    await expect(quick.incr(k)).rejects.toThrow(/fetch failed|ECONNREFUSED/);
    await bridge.resume();
    expect(await quick.incr(k)).toBe(2);
    await quick.del(k);
  });
});
