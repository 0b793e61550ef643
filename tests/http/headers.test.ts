import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { apiRoutes } from "../helpers/routes.js";

/**
 * Transport and headers on every route the api/ tree has (discovered, so routes added later are covered):
 * HSTS, nosniff, the default CSP, CORS on public routes only, and no internals in any error body.
 */
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ CRON_SECRET: "test-secret" });
  await insertProofs(app.db, sampleProofs({ count: 5, seed: 3 }));
});
afterAll(() => app.close());

/** Every endpoint with a concrete path (a sample value for [param] segments) and its declared access. */
const discovered = () =>
  apiRoutes().map(({ path, access }) => ({
    path: path.replace(/\[[^\]]+\]/g, "0x0000000000000000000000000000000000000000000000000000000000000001"),
    access,
  }));

describe("security headers", () => {
  it("every route sends HSTS, nosniff, a CSP and a referrer policy, whatever its status", async () => {
    const routes = discovered();
    expect(routes.length).toBeGreaterThan(5);
    for (const { path } of [
      ...routes,
      { path: "/api/v0/location-proofs?limit=nope" },
      { path: "/no/such/path" },
    ]) {
      const res = await requestAllowed(path);
      expect(res.headers.get("strict-transport-security"), path).toMatch(/max-age=\d{7,}; includeSubDomains/);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBe("no-referrer");
      const csp = res.headers.get("content-security-policy");
      expect(csp, path).toBeTruthy();
      // JSON responses get the strictest default; an HTML page may set its own, but never a permissive one.
      if ((res.headers.get("content-type") ?? "").includes("json")) {
        expect(csp, path).toBe("default-src 'none'; frame-ancestors 'none'");
      } else {
        expect(csp, path).not.toMatch(/unsafe-eval|default-src \*|script-src[^;]*\*/);
        expect(csp, path).toMatch(/frame-ancestors 'none'/);
      }
      await res.arrayBuffer();
    }
  });

  it("the default CSP applies when a handler sets none, and a handler's own CSP is kept", async () => {
    const plain = route({ access: "public", GET: async () => json({}) }).GET;
    const html = route({
      access: "public",
      GET: async () =>
        new Response("<!doctype html><title>x</title>", {
          headers: { "content-type": "text/html", "content-security-policy": "default-src 'self'" },
        }),
    }).GET;
    const req = () => new Request("http://localhost/x");
    expect((await plain(req())).headers.get("content-security-policy")).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
    expect((await html(req())).headers.get("content-security-policy")).toBe("default-src 'self'");
  });
});

describe("CORS", () => {
  it("public GETs allow any origin; restricted routes send no CORS headers", async () => {
    for (const { path, access } of discovered()) {
      const res = await requestAllowed(path, { headers: { origin: "https://example.org" } });
      await res.arrayBuffer();
      if (access === "public") {
        expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
        expect(res.headers.get("access-control-allow-credentials"), path).toBeNull();
      } else {
        expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      }
    }
  });

  it("preflight of a public route allows only reading methods", async () => {
    const res = await app.preflight("/api/v0/location-proofs", "GET");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const methods = (res.headers.get("access-control-allow-methods") ?? "").split(/,\s*/);
    expect(methods).toContain("GET");
    expect(methods).not.toContain("POST");
    expect(methods).not.toContain("DELETE");
    expect(res.headers.get("access-control-allow-headers")).toMatch(/X-API-Key/i);
    expect(res.headers.get("access-control-expose-headers")).toMatch(/RateLimit-Remaining/);
  });
});

describe("no internals in bodies", () => {
  it("an unexpected error becomes a generic 500 without message, stack or SQL", async () => {
    const failing = route({
      access: "public",
      GET: async () => {
        const error = new Error(
          'relation "location_proofs" does not exist: select * from location_proofs where 1=1',
        );
        throw error;
      },
    }).GET;
    const res = await failing(new Request("http://localhost/api/v0/location-proofs"));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/select|relation|location_proofs|at .*\.ts|Error:/i);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ code: "InternalError", error: "Internal Server Error" });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("a database failure behind a real route leaks nothing", async () => {
    const broken = await createTestApp({});
    await insertProofs(broken.db, sampleProofs({ count: 2, seed: 1 }));
    // A real fault: the database is closed under the route.
    await broken.handle.close();
    try {
      for (const path of ["/api/v0/location-proofs", "/api/v0/location-proofs/stats", "/health"]) {
        const res = await broken.request(path);
        expect(res.status, path).toBeGreaterThanOrEqual(500);
        const text = await res.text();
        expect(text, path).not.toMatch(/select |from "|postgres|pglite|stack|\.ts:\d+/i);
        const body = JSON.parse(text);
        expect(typeof body.code, path).toBe("string");
        expect(typeof body.message, path).toBe("string");
      }
    } finally {
      await broken.close().catch(() => {});
      // createTestApp installs its config and database globally; put the shared app's back.
      await reinstall();
    }
  });
});

/**
 * GET, or the first method the route allows when it has no GET (e.g. POST /api/sync). The local router's own 405
 * for a method a file does not export is not a route response (on Vercel the platform answers it), so it is not
 * what these tests are about.
 */
async function requestAllowed(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await app.request(path, init);
  if (res.status !== 405) return res;
  await res.arrayBuffer();
  const method = (res.headers.get("allow") ?? "GET").split(/,\s*/)[0]!;
  return app.request(path, { ...init, method });
}

async function reinstall() {
  const { setDatabase } = await import("../../db/client.js");
  const { loadConfig, setConfig } = await import("../../lib/config.js");
  setDatabase(app.handle);
  setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0", CRON_SECRET: "test-secret" }));
}
