import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";
import { ALL_NETWORKS } from "../helpers/chains.js";

let app: TestApp;
let rows: NewLocationProofRow[];
const NOW = new Date();

beforeAll(async () => {
  app = await createTestApp({ CHAINS: "devnet,sepolia", RATE_LIMIT_PER_MINUTE: "0" });
  rows = sampleProofs({ count: 120, seed: 3, now: NOW, days: 40 });
  await insertProofs(app.db, rows);
});
afterAll(() => app.close());

describe("GET /api/v0/location-proofs/:uid", () => {
  it("returns one proof, revoked ones too, with its revocation status", async () => {
    const revoked = rows.find((r) => r.revoked)!;
    const res = await app.get(`/api/v0/location-proofs/${revoked.uid}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uid: revoked.uid, chain: revoked.chain, revoked: true });
    expect(res.body.revocation_time).toBe(revoked.revocationTime!.toISOString());
  });
  it("accepts an upper-case uid", async () => {
    const res = await app.get(`/api/v0/location-proofs/${rows[0]!.uid.toUpperCase().replace("0X", "0x")}`);
    expect(res.status).toBe(200);
    expect(res.body.uid).toBe(rows[0]!.uid);
  });
  it("404s an unknown uid with a JSON error", async () => {
    const uid = `0x${"ab".repeat(32)}`;
    const res = await app.get(`/api/v0/location-proofs/${uid}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      error: "Not Found",
      code: "NotFound",
      message: `No location proof with uid ${uid}`,
    });
  });
  it("400s a malformed uid", async () => {
    for (const bad of ["0x123", "hello", `0x${"zz".repeat(32)}`]) {
      const res = await app.get(`/api/v0/location-proofs/${bad}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ parameter: "uid" });
    }
  });
  it("400s unknown query parameters", async () => {
    const res = await app.get(`/api/v0/location-proofs/${rows[0]!.uid}?foo=1`);
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe("foo");
  });
});

describe("GET /api/v0/location-proofs/stats", () => {
  it("wins over :uid and counts from the data", async () => {
    const res = await app.get("/api/v0/location-proofs/stats");
    expect(res.status).toBe(200);
    const revoked = rows.filter((r) => r.revoked).length;
    const day = NOW.getTime() - 86_400_000;
    expect(res.body).toMatchObject({
      total: rows.length,
      revoked,
      active: rows.length - revoked,
      with_coordinates: rows.filter((r) => r.longitude != null).length,
      last_24h: rows.filter((r) => r.eventTimestamp!.getTime() >= day).length,
      last_7d: rows.filter((r) => r.eventTimestamp!.getTime() >= NOW.getTime() - 7 * 86_400_000).length,
      last_30d: rows.filter((r) => r.eventTimestamp!.getTime() >= NOW.getTime() - 30 * 86_400_000).length,
    });
    const chains = [...new Set(rows.map((r) => r.chain))].sort();
    expect(Object.keys(res.body.by_chain)).toEqual(chains);
    for (const chain of chains) {
      expect(res.body.by_chain[chain].total).toBe(rows.filter((r) => r.chain === chain).length);
    }
    const times = rows.map((r) => r.eventTimestamp!.getTime());
    expect(res.body.earliest_event).toBe(new Date(Math.min(...times)).toISOString());
    expect(res.body.latest_event).toBe(new Date(Math.max(...times)).toISOString());
  });
});

describe("GET /api/v0/config", () => {
  it("lists every chain with contract, schema and enabled flag, and the limits", async () => {
    const res = await app.get("/api/v0/config");
    expect(res.status).toBe(200);
    const names = res.body.chains.map((c: any) => c.name);
    expect(names).toEqual([...ALL_NETWORKS, "devnet", "devnet2"]);
    const sepolia = res.body.chains.find((c: any) => c.name === "sepolia");
    expect(sepolia).toMatchObject({
      chain_id: 11155111,
      eas_address: "0xC2679fBD37d54388Ce493F1DB75320D236e1815e",
      schema_uid: LOCATION_SCHEMA_UID,
      enabled: true,
    });
    expect(res.body.chains.find((c: any) => c.name === "base").enabled).toBe(false);
    expect(res.body.limits).toEqual({
      page_size_default: 100,
      page_size_max: 1000,
      ogc_limit_default: 10,
      ogc_limit_max: 1000,
      rate_limit_per_minute: 0,
      sync_stale_after_seconds: 600,
    });
  });
});

describe("GET / and /health", () => {
  it("root links are absolute and follow forwarded headers", async () => {
    const res = await app.get("/", {
      headers: { "x-forwarded-host": "api.example.org", "x-forwarded-proto": "https" },
    });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe("Location Proof Query Service");
    expect(res.body.links.location_proofs).toBe("https://api.example.org/api/v0/location-proofs");
    for (const link of Object.values(res.body.links) as string[])
      expect(link).toMatch(/^https:\/\/api\.example\.org\//);
  });
  it("a forged forwarded host cannot inject a path into links", async () => {
    const res = await app.get("/", { headers: { "x-forwarded-host": "evil.example/path?x=" } });
    expect(res.body.links.self).toBe(`${TEST_BASE}/`);
  });
  it("health checks the database and is never cached", async () => {
    const res = await app.get("/health");
    expect(res.status).toBe(200);
    // Issue 11: the enabled chains have never synced, so the service answers but is `degraded`.
    expect(res.body).toMatchObject({ status: "degraded", checks: { database: { status: "ok" } } });
    expect(res.body.checks.sync.chains.map((c: any) => [c.chain, c.status])).toEqual([
      ["sepolia", "never_synced"],
      ["devnet", "never_synced"],
    ]);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

describe("routing, errors and HTTP semantics", () => {
  it("an unknown path or a wrong version is a JSON 404 'Cannot GET <path>'", async () => {
    const paths = ["/api/v1/location-proofs", "/nope", "/api/v0/location-proofs/0xab/extra", "/api/v0"];
    for (const path of paths) {
      const res = await app.get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(res.body).toEqual({
        error: "Not Found",
        code: "NotFound",
        message: `Cannot GET ${path}`,
        description: `Cannot GET ${path}`,
      });
    }
  });
  it("a wrong method is a 405 with Allow and the security headers", async () => {
    const res = await app.request("/api/v0/location-proofs", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("strict-transport-security")).toMatch(/max-age=/);
    expect((await res.json()).code).toBe("MethodNotAllowed");
  });
  it("repeated and trailing slashes route like the plain path (static wins over [uid])", async () => {
    const res = await app.get(`${TEST_BASE}//api//v0/location-proofs/stats/`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(rows.length);
  });
  it("public GETs are CDN-cacheable with a strong ETag and answer If-None-Match with 304", async () => {
    const first = await app.request("/api/v0/location-proofs?limit=3");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get("cache-control")).toMatch(/s-maxage=\d+, stale-while-revalidate=\d+/);
    const again = await app.request("/api/v0/location-proofs?limit=3", {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const other = await app.request("/api/v0/location-proofs?limit=4", {
      headers: { "if-none-match": etag },
    });
    expect(other.status).toBe(200);
  });
  it("cached responses vary on the forwarded headers their links are built from", async () => {
    const res = await app.request("/api/v0/location-proofs?limit=1");
    expect(res.headers.get("vary")).toBe("Accept, X-Forwarded-Host, X-Forwarded-Proto");
  });
  it("errors are not cached", async () => {
    const res = await app.request("/api/v0/location-proofs?limit=0");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("etag")).toBeNull();
  });
  it("public GETs carry CORS headers and answer preflights", async () => {
    const res = await app.request("/api/v0/location-proofs/stats");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const pre = await app.request("/api/v0/location-proofs", { method: "OPTIONS" });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-methods")).toContain("GET");
  });
  it("HEAD answers like GET without a body", async () => {
    const res = await app.request("/api/v0/config", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });
});

describe("routeParam outside the router (a host that does not pass segments as query parameters)", () => {
  it("is a 400 naming the parameter for a segment with broken percent-encoding", async () => {
    const { GET } = await import("../../api/v0/location-proofs/[uid].js");
    const res = await GET(new Request(`${TEST_BASE}/api/v0/location-proofs/%E0%A4%A`));
    expect(res.status).toBe(400);
    expect((await res.json()).parameter).toBe("uid");
  });
});
