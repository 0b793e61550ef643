import { sql } from "drizzle-orm";
import { Geodesic } from "geographiclib-geodesic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { locationProofs as p } from "../../db/schema.js";
import { insertProofs, mulberry32, sampleProofs } from "../../lib/local/sample-proofs.js";
import { locationColumns } from "../../lib/location/columns.js";
import { decodeLocation } from "../../lib/location/decode.js";
import { whereClause } from "../../lib/proofs/filter.js";
import { EARTH_RADIUS_M, MAX_RADIUS_M, type Near } from "../../lib/proofs/near.js";
import { cellsAround, readNearest } from "../../lib/proofs/nearest.js";
import { selectProofs } from "../../lib/proofs/rows.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";

// Proximity (near, radius, sort=distance / sortby=distance): the set of proofs a circle returns equals an independent
// great-circle implementation, GeographicLib's geodesic on the same sphere (flattening 0, radius EARTH_RADIUS_M), for
// thousands of circles (cities, the antimeridian, both poles, radii from 1 m to the maximum) over generated points,
// among them points just inside and just outside each of many circles. Points whose library distance lies within
// BAND of the radius are not compared: there the two double-precision computations may round either way.
// The SQL is tested through the filter model (whereClause, as every endpoint builds it); the HTTP paths for a
// representative few circles.

const geod = new Geodesic.Geodesic(EARTH_RADIUS_M, 0);
/** The boundary band: 1 µm, plus 1e-12 of the radius (double precision's reach at continental distances). */
const band = (r: number) => 1e-6 + 1e-12 * r;
/** How far outside the band the boundary points are placed. */
const offset = (r: number) => 1e-4 + 1e-10 * r;

/** Seeded, so every run tests the same circles. */
const rand = mulberry32(2024);
const between = (lo: number, hi: number) => lo + (hi - lo) * rand();
const wrapLon = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);

const CITIES: [number, number][] = [
  [2.3522, 48.8566],
  [-74.006, 40.7128],
  [139.6917, 35.6895],
  [151.2093, -33.8688],
  [-58.3816, -34.6037],
  [178.4419, -18.1416], // Suva, near the antimeridian
  [-171.7514, -13.8333], // Apia, across it
  [-149.9003, 61.2181],
  [18.4241, -33.9249],
  [103.8198, 1.3521],
];

/** The library's distance in metres between two points (degrees). */
const libDistance = (a: { lon: number; lat: number }, b: { lon: number; lat: number }) =>
  geod.Inverse(a.lat, a.lon, b.lat, b.lon, Geodesic.DISTANCE).s12 as number;

/** The point `s` metres from `c` on bearing `azi` (degrees), by the library. */
function direct(c: { lon: number; lat: number }, azi: number, s: number) {
  const r = geod.Direct(c.lat, c.lon, azi, s);
  return { lon: wrapLon(r.lon2 as number), lat: Math.max(-90, Math.min(90, r.lat2 as number)) };
}

// The circles.
const RADII = [1, 10, 100, 1000, 10_000, 50_000, 300_000, 2_000_000, 10_000_000, 19_000_000, MAX_RADIUS_M];
const circles: Near[] = [];
function centre(kind: number): { lon: number; lat: number } {
  switch (kind % 6) {
    case 0: {
      const [lon, lat] = CITIES[Math.floor(rand() * CITIES.length)]!;
      return { lon: wrapLon(lon + between(-0.05, 0.05)), lat: lat + between(-0.05, 0.05) };
    }
    case 1: // on or beside the antimeridian
      return { lon: [180, -180, 179.9999, -179.9999, 179.5][Math.floor(rand() * 5)]!, lat: between(-80, 80) };
    case 2: // at or near a pole
      return {
        lon: between(-180, 180),
        lat: [90, -90, 89.9999, -89.9999, 89, -88.5][Math.floor(rand() * 6)]!,
      };
    default:
      return { lon: between(-180, 180), lat: (Math.asin(2 * rand() - 1) * 180) / Math.PI };
  }
}
for (let i = 0; i < 2400; i++) {
  const radius =
    i % 3 === 0
      ? RADII[i % RADII.length]!
      : Math.min(MAX_RADIUS_M, Math.exp(between(0, Math.log(MAX_RADIUS_M))));
  circles.push({ ...centre(i), radius });
}
circles.push({ lon: 0, lat: 0, radius: MAX_RADIUS_M }, { lon: 180, lat: 90, radius: 1 });

// The points: spread over the sphere, clustered at the cities, at the poles and the antimeridian, and just inside,
// on, and just outside the first circles of each kind.
const points: { lon: number; lat: number }[] = [];
for (let i = 0; i < 1200; i++)
  points.push({ lon: between(-180, 180), lat: (Math.asin(2 * rand() - 1) * 180) / Math.PI });
for (const [lon, lat] of CITIES) {
  for (let i = 0; i < 60; i++) points.push(direct({ lon, lat }, between(0, 360), Math.exp(between(0, 12))));
}
for (let i = 0; i < 150; i++) {
  points.push({ lon: between(-180, 180), lat: i % 2 ? between(89, 90) : between(-90, -89) });
  points.push({
    lon: [180, -180][i % 2]! - (i % 2 ? -1 : 1) * between(0, 0.5) * (i % 5 ? 1 : 0),
    lat: between(-85, 85),
  });
}
points.push({ lon: 0, lat: 90 }, { lon: 45, lat: -90 }, { lon: 180, lat: 0 }, { lon: -180, lat: 10 });
for (const c of circles.slice(0, 240)) {
  if (c.radius >= Math.PI * EARTH_RADIUS_M) continue;
  for (const azi of [0, 90, 180, 270, between(0, 360)]) {
    for (const s of [c.radius - offset(c.radius), c.radius, c.radius + offset(c.radius)])
      if (s > 0) points.push(direct(c, azi, s));
  }
}

// Points within a hair of one centre (0 to 5 m away, most under 0.1 mm), where a distance's shortest text in
// JavaScript (0.000035, 3e-7) is not float8's (3.5e-05, 3e-07).
const HAIR = { lon: 7.4474, lat: 46.948 };
const HAIR_DISTANCES = [0, 4e-8, 3e-7, 2.5e-6, 3.5e-5, 9e-5, 2e-4, 0.75, 5];
for (const [i, s] of HAIR_DISTANCES.entries()) points.push(s ? direct(HAIR, 40 * i, s) : HAIR);

let app: TestApp;
const CHAINS = [
  { chain: "sepolia", chainId: 11155111 },
  { chain: "base", chainId: 8453 },
];
/** uid → point, chain and revoked, as inserted. */
const stored = new Map<string, { lon: number; lat: number; chain: string; revoked: boolean }>();

beforeAll(async () => {
  app = await createTestApp();
  const [template] = sampleProofs({ count: 1, seed: 5, now: new Date("2025-06-01T00:00:00Z") });
  const rows = points.map((pt, i) => {
    const location = `${pt.lon}, ${pt.lat}`;
    const locationType = "DecimalDegrees<string>";
    const srs = "EPSG:4326";
    const uid = `0x${i.toString(16).padStart(64, "0")}`;
    const { chain, chainId } = CHAINS[i % 2]!;
    const revoked = i % 17 === 3;
    stored.set(uid, { ...pt, chain, revoked });
    return {
      ...template!,
      uid,
      chain,
      chainId,
      revoked,
      revocationTime: revoked ? new Date("2025-06-01T00:00:00Z") : null,
      blockNumber: 2_000_000 + i,
      eventTimestamp: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
      eventTimestampRaw: String(Date.UTC(2025, 0, 1) / 1000 + i * 60),
      locationType,
      location,
      srs,
      ...locationColumns(decodeLocation({ locationType, location, srs })),
    };
  });
  await insertProofs(app.db, rows);
  // Every point was stored as given (the decoder kept every coordinate).
  const [row] = await queryRows<{ n: number }>(
    app.db,
    sql`select count(*)::int as n from ${p} where ${p.longitude} is not null`,
  );
  expect(row?.n).toBe(points.length);
}, 120_000);
afterAll(() => app?.close());

/**
 * The library's answer for a circle: the uids within the radius, and those too close to the edge to compare. A
 * quick chord estimate classifies the points far from the edge (its error is many orders below its margin); the
 * library measures every point near it.
 */
function oracle(c: Near, keep: (uid: string) => boolean = () => true) {
  const inside = new Set<string>();
  const edge = new Set<string>();
  const rad = Math.PI / 180;
  const v = (q: { lon: number; lat: number }) => [
    Math.cos(q.lat * rad) * Math.cos(q.lon * rad),
    Math.cos(q.lat * rad) * Math.sin(q.lon * rad),
    Math.sin(q.lat * rad),
  ];
  const cv = v(c);
  for (const [uid, q] of stored) {
    if (!keep(uid)) continue;
    const qv = v(q);
    const chord = Math.hypot(qv[0]! - cv[0]!, qv[1]! - cv[1]!, qv[2]! - cv[2]!);
    const estimate = 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, chord / 2));
    const d = Math.abs(estimate - c.radius) > 1e-4 * c.radius + 10 ? estimate : libDistance(c, q);
    if (Math.abs(d - c.radius) <= band(c.radius)) edge.add(uid);
    else if (d <= c.radius) inside.add(uid);
  }
  return { inside, edge };
}

/** The uids the filter model's SQL returns for a circle (revoked included, no other condition). */
async function sqlAnswer(c: Near): Promise<Set<string>> {
  const rows = await app.db
    .select({ uid: p.uid })
    .from(p)
    .where(whereClause({ near: c, includeRevoked: true }));
  return new Set(rows.map((r) => r.uid));
}

describe("proximity: the set of proofs equals GeographicLib's great circle", () => {
  it(`over ${circles.length} circles and ${points.length} points`, async () => {
    let compared = 0;
    let boundaryHits = 0;
    const failures: string[] = [];
    for (const c of circles) {
      const got = await sqlAnswer(c);
      const { inside, edge } = oracle(c);
      const missing = [...inside].filter((u) => !got.has(u));
      const extra = [...got].filter((u) => !inside.has(u) && !edge.has(u));
      if (missing.length || extra.length)
        failures.push(`${JSON.stringify(c)}: missing ${missing.length}, extra ${extra.length}`);
      compared += inside.size;
      if (edge.size) boundaryHits++;
    }
    expect(failures.slice(0, 10)).toEqual([]);
    // The test has teeth: circles matched many points, and the just-inside/just-outside points were generated.
    expect(compared).toBeGreaterThan(100_000);
    expect(boundaryHits).toBeGreaterThan(100);
  }, 300_000);

  it("reads a circle's candidates through the GiST index on the bounds (never a scan of the table)", async () => {
    for (const c of [
      { lon: 2.35, lat: 48.85, radius: 1000 },
      { lon: 179.99, lat: -18, radius: 50_000 },
      { lon: 0, lat: 89.99, radius: 5000 },
    ]) {
      const where = whereClause({ near: c, includeRevoked: true })!;
      // In one transaction, so that the setting holds for the EXPLAIN on every driver (a pool has many sessions).
      const rows = await app.db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const result = await tx.execute(sql`explain select ${p.uid} from ${p} where ${where}`);
        return (result as unknown as { rows: { "QUERY PLAN": string }[] }).rows;
      });
      const text = rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(text).toMatch(/location_proofs_(bounds|crossing)\w*/);
      expect(text).not.toMatch(/Seq Scan/);
    }
  });
});

const V0 = "/api/v0/location-proofs";
const ITEMS = "/api/ogc/collections/location-proofs/items";
const local = (href: string) => href.replace(TEST_BASE, "");

/** The library's order of a circle's (non-revoked unless `revoked`) matches: distance, then uid. */
function sortedOracle(c: Near, keep: (uid: string) => boolean) {
  const { inside, edge } = oracle(c, keep);
  expect(edge.size).toBe(0);
  return [...inside]
    .map((uid) => ({ uid, d: libDistance(c, stored.get(uid)!) }))
    .sort((a, b) => a.d - b.d || (a.uid < b.uid ? -1 : 1));
}

describe("proximity over HTTP", () => {
  const paris = { lon: 2.3522, lat: 48.8566, radius: 60_000 };
  const fiji = { lon: -179.9, lat: -18.2, radius: 700_000 };

  it("pages nearest first by cursor (next, then prev) exactly as the sorted oracle, each record with its distance", async () => {
    for (const c of [paris, fiji]) {
      const expected = sortedOracle(c, (u) => !stored.get(u)!.revoked);
      expect(expected.length).toBeGreaterThan(20);
      const seen: { uid: string; distance: number }[] = [];
      const pages: string[] = [];
      let url: string | null = `${V0}?near=${c.lon},${c.lat}&radius=${c.radius}&sort=distance&limit=7`;
      while (url) {
        const res = await app.get(local(url));
        expect(res.status, url).toBe(200);
        expect(res.body.pagination.total).toBe(expected.length);
        pages.push(url);
        seen.push(...res.body.data);
        url = res.body.pagination.next;
      }
      expect(pages.length).toBeGreaterThan(3);
      expect(seen.map((r) => r.uid)).toEqual(expected.map((e) => e.uid));
      for (const [i, r] of seen.entries()) expect(Math.abs(r.distance - expected[i]!.d)).toBeLessThan(1e-6);
      // Back from the last page by prev links.
      const back: string[][] = [];
      let prev: string | null = pages.at(-1)!;
      while (prev) {
        const res = await app.get(local(prev));
        back.unshift(res.body.data.map((r: { uid: string }) => r.uid));
        prev = res.body.pagination.prev;
      }
      expect(back.flat()).toEqual(expected.map((e) => e.uid));
      // offset pages agree with the cursor pages.
      const off = await app.get(
        `${V0}?near=${c.lon},${c.lat}&radius=${c.radius}&sort=distance&limit=5&offset=9`,
      );
      expect(off.body.data.map((r: { uid: string }) => r.uid)).toEqual(
        expected.slice(9, 14).map((e) => e.uid),
      );
    }
  });

  it("pages a circle of more matches than one sort reads (rings widened from the point) as the sorted oracle", async () => {
    const c = { lon: 139.7, lat: 35.7, radius: MAX_RADIUS_M };
    const expected = sortedOracle(c, (u) => !stored.get(u)!.revoked);
    expect(expected.length).toBeGreaterThan(5000);
    const base = `${V0}?near=${c.lon},${c.lat}&radius=${c.radius}&sort=distance`;
    const seen: string[] = [];
    const pages: string[] = [];
    let url: string | null = `${base}&limit=40`;
    while (url && pages.length < 5) {
      const res = await app.get(local(url));
      expect(res.status, url).toBe(200);
      pages.push(url);
      seen.push(...res.body.data.map((r: { uid: string }) => r.uid));
      url = res.body.pagination.next;
    }
    expect(seen).toEqual(expected.slice(0, 200).map((e) => e.uid));
    const back = await app.get(local(pages.at(-1)!));
    const prev = await app.get(local(back.body.pagination.prev));
    expect(prev.body.data.map((r: { uid: string }) => r.uid)).toEqual(
      expected.slice(120, 160).map((e) => e.uid),
    );
    const deep = await app.get(`${base}&limit=30&offset=3000`);
    expect(deep.body.data.map((r: { uid: string }) => r.uid)).toEqual(
      expected.slice(3000, 3030).map((e) => e.uid),
    );
    const last = await app.get(`${base}&limit=30&offset=${expected.length - 10}`);
    expect(last.body.data.map((r: { uid: string }) => r.uid)).toEqual(expected.slice(-10).map((e) => e.uid));
  });

  it("a hand-written cursor, however far and whatever its position, costs at most 4 statements", async () => {
    const c = { lon: -140, lat: 0, radius: MAX_RADIUS_M }; // the middle of the Pacific
    const expected = sortedOracle(c, () => true);
    expect(expected.length).toBeGreaterThan(5000);
    const near = { lon: c.lon, lat: c.lat, radius: c.radius };
    for (const d0 of [1, 1_000_000, 9_000_000, 15_000_000, 19_990_000])
      for (const position of [0, 1, 1e9]) {
        let statements = 0;
        const rows = await readNearest(
          {
            near,
            part: { near },
            count: expected.length,
            cursor: { direction: "next", position, values: [d0, "0x", 0] },
            backward: false,
            limit: 41,
            cells: () => cellsAround(app.db, near),
          },
          async (q) => {
            statements++;
            return (await selectProofs(app.db, q)).rows;
          },
        );
        const beyond = expected.filter((e) => e.d > d0);
        expect(statements, `${d0} m, position ${position}`).toBeLessThanOrEqual(4);
        expect(rows.length).toBe(Math.min(41, beyond.length));
        const distances = rows.map((r) => (r as unknown as { distance: number }).distance);
        expect(distances).toEqual([...distances].sort((a, b) => a - b));
        for (const d of distances) expect(d).toBeGreaterThan(d0);
        // The same rows as the whole circle read in one statement (what a part of few matches does).
        const whole = await readNearest(
          {
            near,
            part: { near },
            count: 1,
            cursor: { direction: "next", position, values: [d0, "0x", 0] },
            backward: false,
            limit: 41,
            cells: () => cellsAround(app.db, near),
          },
          async (q) => (await selectProofs(app.db, q)).rows,
        );
        expect(rows.map((r) => r.uid)).toEqual(whole.map((r) => r.uid));
      }
  });

  it("ANDs with the other filters, and carries the distance in the default order too", async () => {
    const c = paris;
    const bbox = [1.5, 48.5, 2.6, 49.5];
    const keep = (u: string) => {
      const s = stored.get(u)!;
      return (
        !s.revoked &&
        s.chain === "base" &&
        s.lon >= bbox[0]! &&
        s.lon <= bbox[2]! &&
        s.lat >= bbox[1]! &&
        s.lat <= bbox[3]!
      );
    };
    const expected = sortedOracle(c, keep);
    expect(expected.length).toBeGreaterThan(3);
    const res = await app.get(
      `${V0}?near=${c.lon},${c.lat}&radius=${c.radius}&chain=base&bbox=${bbox.join(",")}&limit=1000`,
    );
    expect(res.status).toBe(200);
    expect(new Set(res.body.data.map((r: { uid: string }) => r.uid))).toEqual(
      new Set(expected.map((e) => e.uid)),
    );
    for (const r of res.body.data) expect(typeof r.distance).toBe("number");
    // the alias shares the handler
    const alias = await app.get(
      `/api/v0/location-records?near=${c.lon},${c.lat}&radius=${c.radius}&chain=base&bbox=${bbox.join(",")}&limit=1000`,
    );
    expect(alias.body.data).toEqual(res.body.data);
  });

  it("OGC items: sortby=distance pages nearest first, the distance in each feature's properties", async () => {
    const c = fiji;
    // The OGC collection holds revoked proofs too.
    const expected = sortedOracle(c, () => true);
    const seen: { id: string; properties: { distance: number } }[] = [];
    let url: string | null = `${ITEMS}?near=${c.lon},${c.lat}&radius=${c.radius}&sortby=distance&limit=9`;
    let pages = 0;
    while (url) {
      const res = await app.get(local(url));
      expect(res.status, url).toBe(200);
      expect(res.body.numberMatched).toBe(expected.length);
      seen.push(...res.body.features);
      url = res.body.links.find((l: { rel: string }) => l.rel === "next")?.href ?? null;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(seen.map((f) => f.id)).toEqual(expected.map((e) => e.uid));
    for (const [i, f] of seen.entries())
      expect(Math.abs(f.properties.distance - expected[i]!.d)).toBeLessThan(1e-6);
  });

  it("writes each distance into the record's text, its last member, as JSON.stringify writes it", async () => {
    const c = { ...HAIR, radius: 10 };
    const near = `near=${c.lon},${c.lat}&radius=${c.radius}`;
    for (const [url, closing, revoked] of [
      [`${V0}?${near}&sort=distance&limit=100`, "}", false],
      [`${V0}?${near}&limit=100`, "}", false],
      [`${ITEMS}?${near}&sortby=distance&limit=100`, "}}", true],
      [`/api/ogc/collections/location-proof-shapes/items?${near}&limit=100`, "}}", true],
    ] as const) {
      const expected = sortedOracle(c, (u) => revoked || !stored.get(u)!.revoked);
      const res = await app.request(url);
      expect(res.status, url).toBe(200);
      const text = await res.text();
      const body = JSON.parse(text);
      const ids: string[] = (body.data ?? body.features).map(
        (r: { uid?: string; id?: string }) => r.uid ?? r.id,
      );
      expect(new Set(ids), url).toEqual(new Set(expected.map((e) => e.uid)));
      // The member as written: the number's text and the braces that close the record (or properties and feature).
      const written = [...text.matchAll(/"distance":([-+.\deE]+)(\}+)[,\]]/g)];
      expect(written.length, url).toBe(ids.length);
      for (const [i, [, number, braces]] of written.entries()) {
        expect(braces, url).toBe(closing);
        expect(number, url).toBe(JSON.stringify(Number(number)));
        expect(Math.abs(Number(number) - libDistance(c, stored.get(ids[i]!)!)), url).toBeLessThan(1e-6);
      }
      const numbers = written.map((m) => m[1]!);
      expect(numbers).toContain("0");
      expect(numbers.some((n) => /^0\.0000/.test(n))).toBe(true);
      expect(numbers.some((n) => /e-\d$/.test(n))).toBe(true);
    }
  });

  it("refuses bad proximity input with a 400 naming the parameter", async () => {
    const cases: [string, string][] = [
      [`${V0}?radius=100`, "radius"],
      [`${V0}?near=2,48`, "near"],
      [`${V0}?near=200,10&radius=5`, "near"],
      [`${V0}?near=10,-95&radius=5`, "near"],
      [`${V0}?near=10&radius=5`, "near"],
      [`${V0}?near=a,b&radius=5`, "near"],
      [`${V0}?near=2,48&radius=0`, "radius"],
      [`${V0}?near=2,48&radius=-3`, "radius"],
      [`${V0}?near=2,48&radius=${MAX_RADIUS_M + 1}`, "radius"],
      [`${V0}?near=2,48&radius=ten`, "radius"],
      [`${V0}?sort=distance`, "sort"],
      [`${V0}?sort=nearest&near=2,48&radius=5`, "sort"],
      [`${ITEMS}?radius=100`, "radius"],
      [`${ITEMS}?near=2,48`, "near"],
      [`${ITEMS}?near=2,91&radius=5`, "near"],
      [`${ITEMS}?near=2,48&radius=${MAX_RADIUS_M * 2}`, "radius"],
      [`${ITEMS}?sortby=distance`, "sortby"],
      [`${ITEMS}?sortby=-distance&near=2,48&radius=5`, "sortby"],
      [`${ITEMS}?sortby=distance,uid&near=2,48&radius=5`, "sortby"],
    ];
    for (const [url, parameter] of cases) {
      const res = await app.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body.parameter, url).toBe(parameter);
    }
    // The maximum radius is accepted, and matches every proof with coordinates.
    const all = await app.get(`${V0}?near=2,48&radius=${MAX_RADIUS_M}&limit=1&includeRevoked=true`);
    expect(all.status).toBe(200);
    expect(all.body.pagination.total).toBe(points.length);
  });
});
