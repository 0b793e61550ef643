import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewLocationProofRow } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";
import { oracle } from "../helpers/oracle.js";

let app: TestApp;
let rows: NewLocationProofRow[];
const NOW = new Date("2026-06-15T12:00:00Z");

beforeAll(async () => {
  app = await createTestApp();
  rows = sampleProofs({ count: 600, seed: 11, now: NOW, days: 60 });
  // Force exact ties on event_timestamp so the uid tiebreaker is exercised.
  for (let i = 0; i < 40; i++) rows[i]!.eventTimestamp = new Date("2026-06-01T00:00:00Z");
  // And a proof without an event time.
  rows[40]!.eventTimestamp = null;
  await insertProofs(app.db, rows);
});
afterAll(() => app.close());

const uids = (body: any): string[] => body.data.map((p: any) => p.uid);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A native list link: the given query, then a cursor. */
const CURSOR_LINK = (query: string) =>
  new RegExp(
    `^${escapeRegExp(`${TEST_BASE}/api/v0/location-proofs?${query}`)}&cursor=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`,
  );

async function walk(query: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const res = await app.get(
      `/api/v0/location-proofs?${query}${query ? "&" : ""}limit=${limit}&offset=${offset}`,
    );
    expect(res.status).toBe(200);
    seen.push(...uids(res.body));
    if (res.body.data.length < limit) return seen;
  }
}

describe("GET /api/v0/location-proofs", () => {
  it("returns the envelope with default limit 100, total and absolute links", async () => {
    const res = await app.get("/api/v0/location-proofs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const expected = oracle(rows, {});
    expect(res.body.data).toHaveLength(100);
    // Issue 10: next carries a cursor (the last row's sort key) instead of offset=100.
    expect(res.body.pagination).toEqual({
      total: expected.length,
      limit: 100,
      offset: 0,
      returned: 100,
      next: expect.stringMatching(CURSOR_LINK("limit=100")),
      prev: null,
    });
    expect(uids(res.body)).toEqual(expected.slice(0, 100).map((r) => r.uid));
    const second = await app.get(res.body.pagination.next.replace(TEST_BASE, ""));
    expect(uids(second.body)).toEqual(expected.slice(100, 200).map((r) => r.uid));
    expect(second.body.pagination.offset).toBeNull();
  });

  it("serialises every field of the spec's resource", async () => {
    const res = await app.get("/api/v0/location-proofs?limit=20&filter=hasCoordinates");
    const proof = res.body.data.find((p: any) => p.geometry.type === "Point");
    for (const key of [
      "uid",
      "chain",
      "prover",
      "subject",
      "event_timestamp",
      "location_type",
      "latitude",
      "longitude",
      "location",
      "srs",
      "revoked",
    ]) {
      expect(proof).toHaveProperty(key);
    }
    expect(proof.prover).toMatch(/^0x[0-9a-f]{40}$/);
    expect(typeof proof.latitude).toBe("number");
    expect(proof.event_timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(proof.geometry.coordinates[0]).toBe(proof.longitude);
  });

  it("next and prev keep every filter", async () => {
    const res = await app.get("/api/v0/location-proofs?chain=base&limit=10&offset=10&includeRevoked=true");
    const next = new URL(res.body.pagination.next);
    // Issue 10: the links carry a cursor, and no offset, in place of offset=20 / offset=0.
    expect(Object.fromEntries(next.searchParams)).toEqual({
      chain: "base",
      limit: "10",
      includeRevoked: "true",
      cursor: expect.any(String),
    });
    const page = async (url: string) => uids((await app.get(url.replace(TEST_BASE, ""))).body);
    const offsetPage = (offset: number) =>
      page(`/api/v0/location-proofs?chain=base&limit=10&offset=${offset}&includeRevoked=true`);
    expect(await page(res.body.pagination.next)).toEqual(await offsetPage(20));
    expect(await page(res.body.pagination.prev)).toEqual(await offsetPage(0));
  });

  it("next and prev keep each parameter byte for byte, never re-encoded", async () => {
    const query = "bbox=-180,-90,180,90&datetime=2020-01-01T00:00:00Z/..&chain=base%2Ccelo&limit=5&offset=5";
    const res = await app.get(`/api/v0/location-proofs?${query}`);
    expect(res.status).toBe(200);
    const kept = "bbox=-180,-90,180,90&datetime=2020-01-01T00:00:00Z/..&chain=base%2Ccelo";
    // Issue 10: a cursor replaces offset; everything else is kept as sent.
    expect(res.body.pagination.next).toMatch(CURSOR_LINK(`${kept}&limit=5`));
    expect(res.body.pagination.prev).toMatch(CURSOR_LINK(`${kept}&limit=5`));
  });

  it("orders newest first with ties broken by uid, proofs without event time last", async () => {
    const all = await walk("includeRevoked=true", 1000);
    expect(all).toEqual(oracle(rows, { includeRevoked: true }).map((r) => r.uid));
    expect(all.at(-1)).toBe(rows[40]!.uid);
  });

  it("leaves revoked proofs out unless includeRevoked=true", async () => {
    const revoked = rows.filter((r) => r.revoked).map((r) => r.uid);
    expect(revoked.length).toBeGreaterThan(0);
    const without = await walk("", 1000);
    expect(without.some((u) => revoked.includes(u))).toBe(false);
    const withRevoked = await walk("includeRevoked=true", 1000);
    expect(revoked.every((u) => withRevoked.includes(u))).toBe(true);
    const explicitFalse = await app.get("/api/v0/location-proofs?includeRevoked=false&limit=1");
    expect(explicitFalse.body.pagination.total).toBe(without.length);
  });

  it("filters by bbox, including boxes crossing the antimeridian and (0,0)", async () => {
    for (const bbox of [
      { minLon: -10, minLat: 35, maxLon: 30, maxLat: 60 },
      { minLon: 170, minLat: -25, maxLon: -170, maxLat: -10 },
      { minLon: -0.5, minLat: -0.5, maxLon: 0.5, maxLat: 0.5 },
      { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 },
    ]) {
      const q = `bbox=${bbox.minLon},${bbox.minLat},${bbox.maxLon},${bbox.maxLat}`;
      const got = await walk(q, 1000);
      const want = oracle(rows, { bbox }).map((r) => r.uid);
      expect(want.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
    }
  });

  it("filters by hasCoordinates, chain, prover (any case), subject and time", async () => {
    const prover = rows[5]!.prover;
    expect(await walk(`prover=${prover.toUpperCase().replace("0X", "0x")}`, 1000)).toEqual(
      oracle(rows, { prover }).map((r) => r.uid),
    );
    expect(await walk("filter=hasCoordinates", 1000)).toEqual(
      oracle(rows, { hasCoordinates: true }).map((r) => r.uid),
    );
    expect(await walk("chain=base,celo", 1000)).toEqual(
      oracle(rows, { chains: ["base", "celo"] }).map((r) => r.uid),
    );
    const subject = rows[7]!.subject;
    const bySubject = await app.get(`/api/v0/location-proofs?subject=${subject}&includeRevoked=true`);
    expect(uids(bySubject.body)).toEqual([rows[7]!.uid]);

    const start = new Date("2026-05-20T00:00:00Z");
    const end = new Date("2026-06-01T00:00:00Z");
    const want = oracle(rows, { start, end }).map((r) => r.uid);
    expect(await walk("fromTimestamp=2026-05-20T00:00:00Z&toTimestamp=2026-06-01T00:00:00Z", 1000)).toEqual(
      want,
    );
    expect(await walk("datetime=2026-05-20T00:00:00Z/2026-06-01T00:00:00Z", 1000)).toEqual(want);
    // The instant shared by 40 proofs matches exactly them (minus revoked), inclusive ends.
    const instant = await walk("datetime=2026-06-01T00:00:00Z", 1000);
    expect(instant).toEqual(oracle(rows, { start: end, end }).map((r) => r.uid));
    expect(instant.length).toBeGreaterThan(30);
    expect(await walk("datetime=../2026-05-01T00:00:00Z", 1000)).toEqual(
      oracle(rows, { end: new Date("2026-05-01T00:00:00Z") }).map((r) => r.uid),
    );
    expect(await walk("datetime=2026-06-10T00:00:00Z/..", 1000)).toEqual(
      oracle(rows, { start: new Date("2026-06-10T00:00:00Z") }).map((r) => r.uid),
    );
  });

  it("pages by offset without skipping or repeating, for any page size and filter", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 250 }),
        fc.constantFrom(
          "",
          "includeRevoked=true",
          "bbox=-180,-60,180,60",
          "chain=sepolia",
          "filter=hasCoordinates",
        ),
        async (limit, query) => {
          const all = await walk(query, limit);
          expect(new Set(all).size).toBe(all.length);
          const total = (await app.get(`/api/v0/location-proofs?${query}`)).body.pagination.total;
          expect(all.length).toBe(total);
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe("GET /api/v0/location-proofs: bad input is a 400 naming the parameter", () => {
  const cases: [string, string, RegExp][] = [
    ["limit=1001", "limit", /at most 1000/],
    ["limit=0", "limit", /at least 1/],
    ["limit=-1", "limit", /whole number/],
    ["limit=abc", "limit", /whole number/],
    ["limit=1.5", "limit", /whole number/],
    ["limit=", "limit", /whole number/],
    ["offset=-5", "offset", /whole number/],
    ["offset=1e3", "offset", /whole number/],
    ["bbox=10,10,0,0", "bbox", /minLat/],
    ["bbox=1,2,3", "bbox", /4 comma-separated numbers/],
    ["bbox=a,b,c,d", "bbox", /numbers/],
    ["bbox=0,0,200,10", "bbox", /longitudes/],
    ["bbox=0,-91,10,10", "bbox", /latitudes/],
    ["bbox=NaN,0,1,1", "bbox", /numbers/],
    ["bbox=Infinity,0,1,1", "bbox", /numbers/],
    ["filter=withCoordinates", "filter", /hasCoordinates/],
    ["includeRevoked=yes", "includeRevoked", /true or false/],
    ["chain=goerli", "chain", /one or more of/],
    ["prover=abc", "prover", /0x-prefixed/],
    ["prover=1234567890123456789012345678901234567890", "prover", /0x-prefixed/],
    ["subject=0x123", "subject", /0x-prefixed/],
    ["fromTimestamp=yesterday", "fromTimestamp", /ISO 8601/],
    ["toTimestamp=2026-02-30T00:00:00Z", "toTimestamp", /ISO 8601/],
    ["datetime=2026-01-01/2025-01-01", "datetime", /start must not be after/],
    ["datetime=../..", "datetime", /ISO 8601/],
    ["datetime=2026-13-01", "datetime", /ISO 8601/],
    ["limit=10&limit=20", "limit", /at most once/],
    ["sort=uid", "sort", /sort must be distance/],
    ["sorting=uid", "sorting", /Unknown query parameter 'sorting'/],
  ];
  it.each(cases)("%s", async (query, parameter, message) => {
    const res = await app.get(`/api/v0/location-proofs?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.body).toMatchObject({ error: "Bad Request", parameter });
    expect(res.body.message).toMatch(message);
    expect(res.body.code).toMatch(/InvalidParameterValue|UnknownParameter/);
  });
});
