import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, setConfig } from "../../lib/config.js";
import { bearerToken, secretsEqual } from "../../lib/http/auth.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { serve } from "../../lib/local/http-server.js";
import { scanApi } from "../../lib/local/route-table.js";
import { createRouter } from "../../lib/local/router.js";
import { createTestApp, ROOT, type TestApp } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";
import { restrictedPaths } from "../helpers/routes.js";

/**
 * The restricted endpoints (sync, cron): bearer CRON_SECRET, 503 when production has no secret, loopback only
 * locally without one. Tested on a handler wrapped by route() (so the rule is proven even before any restricted
 * route exists) and on every api/ file that declares `access: "restricted"`.
 */
let app: TestApp;
let calls = 0;
const restricted = route({
  access: "restricted",
  POST: async () => {
    calls++;
    return json({ ran: true });
  },
}).POST;
const call = (headers: Record<string, string> = {}, method = "POST") =>
  restricted(new Request("http://localhost:3000/api/sync", { method, headers }));

function configure(env: Record<string, string>) {
  setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0", ...env }));
}

beforeAll(async () => {
  app = await createTestApp({ CRON_SECRET: "test-secret" });
});
afterAll(() => app.close());

async function expectRefused(res: Response, status: 401 | 503) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("access-control-allow-origin")).toBeNull();
  const body = await res.json();
  expect(body).toMatchObject({ code: status === 401 ? "Unauthorized" : "ServiceUnavailable" });
  expect(typeof body.error).toBe("string");
  expect(typeof body.message).toBe("string");
  if (status === 401) expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  return body as { message: string };
}

describe("with CRON_SECRET", () => {
  it("runs the handler for the right bearer token (any scheme case), and only then", async () => {
    configure({ CRON_SECRET: "test-secret" });
    const before = calls;
    for (const header of ["Bearer test-secret", "bearer test-secret", "BEARER  test-secret"]) {
      const res = await call({ authorization: header });
      expect(res.status, header).toBe(200);
      expect(await res.json()).toEqual({ ran: true });
    }
    expect(calls - before).toBe(3);
    // GET too: Vercel cron calls with GET.
    expect((await call({ authorization: "Bearer test-secret" }, "GET")).status).toBe(200);
  });

  it("refuses a missing, malformed or wrong token with 401 and never runs the handler", async () => {
    configure({ CRON_SECRET: "test-secret" });
    const before = calls;
    const wrong: Record<string, string>[] = [
      {},
      { authorization: "" },
      { authorization: "Bearer" },
      { authorization: "Bearer " },
      { authorization: "test-secret" },
      { authorization: "Basic dGVzdC1zZWNyZXQ=" },
      { authorization: "Bearer test-secre" },
      { authorization: "Bearer test-secret2" },
      { authorization: "Bearer TEST-SECRET" },
      { authorization: "Bearer test-secret extra" },
      { authorization: "Bearertest-secret" },
      // Being on this machine does not replace the secret once one is configured.
      { "x-real-ip": "127.0.0.1" },
      { "x-api-key": "test-secret" },
    ];
    for (const headers of wrong) await expectRefused(await call(headers), 401);
    expect(calls).toBe(before);
  });

  it("makes the sync engineer's test setup work through the real routing", async () => {
    configure({ CRON_SECRET: "test-secret" });
    for (const path of restrictedPaths()) {
      const method = await allowedMethod(path);
      const refused = await app.request(path, { method });
      await expectRefused(refused, 401);
      const wrong = await app.request(path, { method, headers: { authorization: "Bearer nope" } });
      await expectRefused(wrong, 401);
    }
    // The right token passes (checked on the read-only status endpoint: the others would start a sync).
    for (const path of restrictedPaths().filter((p) => p.endsWith("/status"))) {
      const ok = await app.request(path, { headers: { authorization: "Bearer test-secret" } });
      expect([401, 503], `${path} with the right token`).not.toContain(ok.status);
    }
  });
});

describe("without CRON_SECRET", () => {
  it("fails closed on Vercel: 503 for everyone, loopback and bearer included", async () => {
    configure({ VERCEL: "1", DATABASE_URL: "postgres://postgres@127.0.0.1:5432/unused" });
    const before = calls;
    const attempts: Record<string, string>[] = [
      {},
      { "x-real-ip": "127.0.0.1" },
      { authorization: "Bearer x" },
    ];
    for (const headers of attempts) {
      const body = await expectRefused(await call(headers), 503);
      expect(body.message).toMatch(/CRON_SECRET/);
    }
    expect(calls).toBe(before);
  });

  it("locally, accepts callers on this machine only (trusted x-real-ip)", async () => {
    configure({});
    const before = calls;
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"]) {
      expect((await call({ "x-real-ip": ip })).status, ip).toBe(200);
    }
    expect(calls - before).toBe(5);
    const strangers: Record<string, string>[] = [
      { "x-real-ip": "10.0.0.1" },
      { "x-real-ip": "::2" },
      { "x-real-ip": "128.0.0.1" },
      { "x-real-ip": "not-an-ip" },
      // Only x-real-ip is trusted; a client-supplied X-Forwarded-For claiming loopback is ignored.
      { "x-forwarded-for": "127.0.0.1" },
      { "x-vercel-forwarded-for": "127.0.0.1" },
    ];
    for (const headers of strangers) {
      await expectRefused(await call(headers), 401);
    }
    // Loopback, but relayed by a proxy on this machine (proxy headers present): not a local caller.
    for (const header of ["x-forwarded-for", "forwarded", "x-forwarded-host", "via"]) {
      await expectRefused(await call({ "x-real-ip": "127.0.0.1", [header]: "203.0.113.9" }), 401);
    }
    // No trusted address at all: an unknown caller, told what to do.
    const body = await expectRefused(await call(), 401);
    expect(body.message).toMatch(/CRON_SECRET/);
    expect(calls - before).toBe(5);
  });

  it("over a real socket, the dev server overwrites a forged x-real-ip with the socket address", async () => {
    configure({});
    const { server, url } = await serve(recordingRouter(createRouter(ROOT)), 0);
    try {
      // The request comes from loopback, so it is accepted whatever it claims; and a route that reports the
      // address it sees proves the overwrite: the rate-limit key of a public route follows the socket.
      setConfig(
        loadConfig({
          LOG_LEVEL: "silent",
          RATE_LIMIT_PER_MINUTE: "2",
          RATE_LIMIT_PREFIX: `auth-${process.pid}`,
        }),
      );
      const forged = { "x-real-ip": "203.0.113.1", "x-forwarded-for": "203.0.113.2" };
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${url}/api/v0/config`, { headers: { "x-real-ip": `203.0.113.${10 + i}` } });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      // Three different forged addresses, one real one: the third request is limited.
      expect(statuses).toEqual([200, 200, 429]);
      for (const path of restrictedPaths().filter((p) => p.endsWith("/status"))) {
        configure({});
        const res = await fetch(`${url}${path}`, { headers: { "x-real-ip": forged["x-real-ip"] } });
        expect([401, 503], path).not.toContain(res.status);
        await res.arrayBuffer();
        // The same loopback socket carrying proxy headers is someone else's request relayed by a proxy or tunnel
        // on this machine: without CRON_SECRET it is refused.
        const relayed = await fetch(`${url}${path}`, { headers: forged });
        expect(relayed.status, path).toBe(401);
        await relayed.arrayBuffer();
      }
    } finally {
      server.close();
    }
  });
});

describe("public cron probe", () => {
  it("/api/cron/sync/test stays public (no credentials needed) when it exists", async () => {
    configure({ CRON_SECRET: "test-secret" });
    const probe = scanApi(ROOT).find((r) => r.path === "/api/cron/sync/test");
    if (!probe) return;
    const res = await app.request("/api/cron/sync/test");
    expect(res.status).toBe(200);
  });
});

describe("helpers", () => {
  it("parses bearer tokens strictly", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("Bearer abc def")).toBeUndefined();
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken(null)).toBeUndefined();
  });
  it("compares secrets of any length without throwing", () => {
    expect(secretsEqual("a", "a")).toBe(true);
    expect(secretsEqual("a", "ab")).toBe(false);
    expect(secretsEqual("", "x".repeat(1000))).toBe(false);
    expect(secretsEqual("é", "é")).toBe(true);
  });
});

/** POST if the route takes it, else the first method its 405 allows. */
async function allowedMethod(path: string): Promise<string> {
  const res = await app.request(path, { method: "POST" });
  await res.arrayBuffer();
  if (res.status !== 405) return "POST";
  return (res.headers.get("allow") ?? "GET").split(/,\s*/)[0]!;
}
