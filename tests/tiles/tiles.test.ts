import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_SCHEMA_UIDS } from "../../lib/devnet/schemas.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { loadSyntheticProofs, SYNTHETIC_CITIES } from "../../lib/local/synthetic-proofs.js";
import { ITEMS_PARAMS } from "../../lib/ogc/items-params.js";
import {
  CLUSTER_GRID,
  CLUSTERS_LAYER,
  ITEMS_PAGE_NAMES,
  MAX_POINTS,
  POINTS_LAYER,
  TILE_FILTER_NAMES,
} from "../../lib/tiles/tile-rules.js";
import { MAX_ZOOM, type TileAddress, tileBounds } from "../../lib/tiles/web-mercator.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { type DecodedTile, decodeTile } from "./decode.js";

/**
 * Tiles as a map client reads them, decoded with a maintained MVT decoder, against the items endpoint as the
 * truth: for every tile and filter, the proofs a tile holds (its points, or its clusters' counts) are exactly the
 * items' proofs with coordinates in the tile's area for the same filter; points below the threshold carry their
 * ids, clusters only above it. The data: sample proofs (Null Island on two tile edges, the antimeridian) and
 * synthetic ones crowding 30 cities, so that low zooms are clusters and high zooms points.
 */
let app: TestApp;
const END = new Date("2026-06-01T00:00:00Z");
const samples = sampleProofs({ count: 200, seed: 27, now: END });

/** A sample proof moved to a point (its shape becomes that point). */
const at = (row: (typeof samples)[number], lon: number, lat: number) => ({
  ...row,
  longitude: lon,
  latitude: lat,
  minLon: lon,
  maxLon: lon,
  minLat: lat,
  maxLat: lat,
  geometry: { type: "Point", coordinates: [lon, lat] },
});

/**
 * Proofs exactly on tile edges (the equator, the prime meridian, ±90°, ±180°, where four tiles meet) and beyond
 * Web Mercator's latitude limit (drawn on the top and bottom rows): each must be in exactly one tile of a zoom.
 */
const EDGES: [number, number][] = [
  [0, 0],
  [0, 0],
  [0, 12.5],
  [45, 0],
  [-90, -30],
  [90, 40],
  [180, 5],
  [-180, -5],
  [180, 0],
  [22.5, 85.5],
  [-100, 89.99],
  [10, -90],
  [0, 90],
];
const edges = sampleProofs({ count: EDGES.length, seed: 28, now: END }).map((row, i) =>
  at(row, EDGES[i]![0], EDGES[i]![1]),
);

beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, [...samples, ...edges]);
  await loadSyntheticProofs(app.db, { count: 2500, end: END, days: 60 });
});
afterAll(() => app?.close());

const TILES = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad";

async function tile(t: TileAddress, query = "", init?: RequestInit) {
  const res = await app.request(`${TILES}/${t.z}/${t.x}/${t.y}${query ? `?${query}` : ""}`, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes, decoded: res.status === 200 ? decodeTile(bytes) : undefined };
}

/** The tile's area as CQL2: west and north edges in, east and south out (the last column and row reach ±180, -90). */
function areaFilter(t: TileAddress): string {
  const b = tileBounds(t);
  const last = 2 ** t.z - 1;
  return [
    `longitude >= ${b.minLon}`,
    t.x === last ? `longitude <= 180` : `longitude < ${b.maxLon}`,
    t.y === last ? `latitude >= -90` : `latitude > ${b.minLat}`,
    `latitude <= ${b.maxLat}`,
  ].join(" AND ");
}

type Filters = { params?: Record<string, string>; filter?: string };

/** The items' answer for the tile's area and the filter: the number matched and (when few) the uids. */
async function itemsOf(t: TileAddress, f: Filters): Promise<{ count: number; uids?: string[] }> {
  const filter = f.filter ? `(${areaFilter(t)}) AND (${f.filter})` : areaFilter(t);
  const q = new URLSearchParams({ ...f.params, filter, limit: "1000" });
  const res = await app.get(`/api/ogc/collections/location-proofs/items?${q}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const count = res.body.numberMatched as number;
  return count <= 1000
    ? { count, uids: res.body.features.map((feature: { id: string }) => feature.id).sort() }
    : { count };
}

const tileQuery = (f: Filters) =>
  new URLSearchParams({ ...f.params, ...(f.filter ? { filter: f.filter } : {}) }).toString();

/** The tile holds exactly the items' proofs, as points (with ids) up to the threshold, as clusters above. */
async function expectTileMatchesItems(t: TileAddress, f: Filters = {}): Promise<DecodedTile> {
  const { res, decoded } = await tile(t, tileQuery(f));
  expect(res.status).toBe(200);
  const d = decoded!;
  const items = await itemsOf(t, f);
  const where = `${t.z}/${t.x}/${t.y} ${tileQuery(f)}`;
  expect(d.total, where).toBe(items.count);
  if (items.count <= MAX_POINTS) {
    expect(d.layers).toEqual(items.count ? [POINTS_LAYER] : []);
    expect(d.clusters, where).toEqual([]);
    expect(d.points.map((p) => p.properties.uid).sort(), where).toEqual(items.uids);
    for (const p of d.points) {
      expect(p.properties.chain).toEqual(expect.any(String));
      expect(typeof p.properties.revoked).toBe("boolean");
    }
  } else {
    expect(d.layers).toEqual([CLUSTERS_LAYER]);
    const cells = new Set<string>();
    for (const c of d.clusters) {
      const count = Number(c.properties.count);
      expect(count).toBeGreaterThanOrEqual(1);
      if (count === 1) expect(c.properties.uid).toMatch(/^0x[0-9a-f]{64}$/);
      else expect(c.properties.uid).toBeUndefined();
      const cell = `${Math.floor(c.x / (d.extent / CLUSTER_GRID))},${Math.floor(c.y / (d.extent / CLUSTER_GRID))}`;
      expect(cells.has(cell), `${where}: one cluster per cell`).toBe(false);
      cells.add(cell);
    }
  }
  for (const feature of [...d.points, ...d.clusters]) {
    expect(feature.type).toBe(1);
    expect(feature.x).toBeGreaterThanOrEqual(0);
    expect(feature.x).toBeLessThan(d.extent);
    expect(feature.y).toBeGreaterThanOrEqual(0);
    expect(feature.y).toBeLessThan(d.extent);
  }
  return d;
}

/** The tile at zoom z holding a longitude and latitude. */
function tileAt(lon: number, lat: number, z: number): TileAddress {
  const n = 2 ** z;
  const x = Math.min(n - 1, Math.floor(((lon + 180) / 360) * n));
  const s = Math.sin((lat * Math.PI) / 180);
  const y = Math.min(n - 1, Math.max(0, Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n)));
  return { z, x, y };
}

const [, tokyoLon, tokyoLat] = SYNTHETIC_CITIES[0]!;

it("each edge proof lies in exactly one tile of every zoom", async () => {
  const onlyEdges = new URLSearchParams({
    filter: `uid IN (${edges.map((e) => `'${e.uid}'`).join(", ")})`,
  }).toString();
  for (const z of [1, 2, 5, 9, 14, MAX_ZOOM]) {
    const n = 2 ** z;
    for (const [lon, lat] of EDGES) {
      const t = tileAt(lon, lat, z);
      const neighbours = [-1, 0, 1].flatMap((dx) =>
        [-1, 0, 1].map((dy) => ({ z, x: (t.x + dx + n) % n, y: t.y + dy })),
      );
      let holding = 0;
      for (const u of neighbours.filter((u) => u.y >= 0 && u.y < n)) {
        const d = (await tile(u, onlyEdges)).decoded!;
        holding += d.points.filter((p) =>
          edges.some((e) => e.uid === p.properties.uid && e.longitude === lon && e.latitude === lat),
        ).length;
      }
      expect(holding, `${lon},${lat} at z${z}`).toBe(EDGES.filter(([a, b]) => a === lon && b === lat).length);
    }
  }
});

describe("tiles hold exactly the items' proofs with coordinates", () => {
  it("z0 holds every proof with coordinates, in clusters whose counts add up", async () => {
    const d = await expectTileMatchesItems({ z: 0, x: 0, y: 0 });
    const withCoordinates = await app.get(
      "/api/ogc/collections/location-proofs/items?limit=1&filter=longitude%20IS%20NOT%20NULL",
    );
    expect(d.total).toBe(withCoordinates.body.numberMatched);
    expect(d.total).toBeGreaterThan(MAX_POINTS);
    expect(d.clusters.length).toBeGreaterThan(1);
  });

  it("every tile of z1 and z2, and the tiles down to a street around Tokyo, Null Island and the antimeridian", async () => {
    const tiles: TileAddress[] = [];
    for (const z of [1, 2])
      for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) tiles.push({ z, x, y });
    for (let z = 3; z <= MAX_ZOOM; z += 3) {
      tiles.push(tileAt(tokyoLon, tokyoLat, z), tileAt(179.9, -17.8, z), tileAt(-179.9, -13.8, z));
      // The four tiles that meet at 0,0, and the tiles of the edge proofs.
      for (const [dx, dy] of [
        [0, 0],
        [-1, 0],
        [0, -1],
        [-1, -1],
      ] as const) {
        const t = tileAt(0, 0, z);
        tiles.push({ z, x: t.x + dx, y: t.y + dy });
      }
      for (const [lon, lat] of EDGES) tiles.push(tileAt(lon, lat, z));
    }
    const kinds = new Set<string>();
    for (const t of tiles) {
      const d = await expectTileMatchesItems(t);
      kinds.add(d.clusters.length ? "clusters" : d.points.length ? "points" : "empty");
    }
    expect([...kinds].sort()).toEqual(["clusters", "empty", "points"]);
  });

  it("takes the items' filters: chain, datetime, prover, subject and a CQL2 filter", async () => {
    const prover = samples.find((r) => r.longitude !== null)!.prover;
    const filters: Filters[] = [
      { params: { chain: "base" } },
      { params: { chain: "sepolia,base" } },
      { params: { datetime: "2026-05-01T00:00:00Z/.." } },
      { params: { datetime: "../2026-04-15" } },
      { params: { prover } },
      { filter: "revoked = false" },
      { filter: "chain = 'celo' AND event_timestamp > TIMESTAMP('2026-05-10T00:00:00Z')" },
      { params: { chain: "arbitrum", datetime: "2026-04-01/2026-05-20" }, filter: "revoked = false" },
    ];
    for (const f of filters) {
      await expectTileMatchesItems({ z: 0, x: 0, y: 0 }, f);
      await expectTileMatchesItems(tileAt(tokyoLon, tokyoLat, 6), f);
      await expectTileMatchesItems(tileAt(tokyoLon, tokyoLat, 12), f);
    }
  });
});

describe("the map takes every filter the list takes", () => {
  const SOURCE: Filters[] = [
    { params: { schema: DEVNET_SCHEMA_UIDS.dart } },
    { params: { protocolVersion: "1.0" } },
    { params: { locationType: "geojson-point" } },
    { params: { near: `${tokyoLon},${tokyoLat}`, radius: "300000" } },
    { params: { schema: DEVNET_SCHEMA_UIDS.v01, chain: "base", near: "0,0", radius: "20000000" } },
  ];

  it("tiles answer schema, protocolVersion, locationType and near/radius as the items do", async () => {
    for (const f of SOURCE) {
      const z0 = await expectTileMatchesItems({ z: 0, x: 0, y: 0 }, f);
      expect(z0.total, tileQuery(f)).toBeGreaterThan(0);
      await expectTileMatchesItems(tileAt(tokyoLon, tokyoLat, 6), f);
      await expectTileMatchesItems(tileAt(tokyoLon, tokyoLat, 12), f);
    }
  });

  it("the items page's map asks its tiles for every filter of the page, and for nothing else", async () => {
    const page = new URLSearchParams({
      f: "html",
      schema: DEVNET_SCHEMA_UIDS.dart,
      protocolVersion: "1.0",
      locationType: "geojson-point",
      near: "139.69,35.69",
      radius: "5000",
      chain: "base",
      datetime: "2026-05-01/..",
      prover: samples[0]!.prover,
      subject: samples[0]!.subject,
      filter: "revoked = false",
      "filter-lang": "cql2-text",
      limit: "5",
    });
    const res = await app.request(`/api/ogc/collections/location-proofs/items?${page}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const config = JSON.parse(
      /<script type="application\/json" id="tile-map-config">(.*?)<\/script>/s.exec(html)![1]!,
    );
    const tiles = new URL(String(config.tiles).replace(/[{}]/g, ""), "http://x");
    const expected = [...page.entries()].filter(([name]) => name !== "f" && name !== "limit");
    // Then the data version the URL was made at (lib/data-version/tile-version.ts).
    const entries = [...tiles.searchParams.entries()];
    expect(entries.slice(0, -1)).toEqual(expected);
    expect(entries.at(-1)![0]).toBe("v");
    expect(entries.at(-1)![1]).toMatch(/^[1-9]\d*$/);
    // And the tile at that URL answers (the tile takes each of them).
    const t = tileAt(139.69, 35.69, 10);
    const one = await app.request(`${TILES}/10/${t.x}/${t.y}${tiles.search}`);
    expect(one.status, await one.clone().text()).toBe(200);
  });

  it("one list: every items parameter is a tile filter or a page parameter, never both, never neither", () => {
    const filters = new Set<string>(TILE_FILTER_NAMES);
    const page = new Set<string>(ITEMS_PAGE_NAMES);
    for (const name of Object.keys(ITEMS_PARAMS))
      expect(filters.has(name) !== page.has(name), name).toBe(true);
    expect(filters.size + page.size).toBe(Object.keys(ITEMS_PARAMS).length);
  });
});

describe("bad addresses and parameters are 4xx errors naming what is wrong", () => {
  it.each([
    ["19/0/0", 400, "tileMatrix"],
    ["99999999999/0/0", 400, "tileMatrix"],
    ["1/2/0", 400, "tileCol"],
    ["1/0/2", 400, "tileRow"],
    ["3/-1/0", 400, "tileCol"],
    ["3/0/1.5", 400, "tileRow"],
    ["03/0/0", 400, "tileMatrix"],
    ["a/0/0", 400, "tileMatrix"],
  ])("%s → %i naming %s", async (path, status, parameter) => {
    const res = await app.get(`${TILES}/${path}`);
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body.parameter).toBe(parameter);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("an unknown tile matrix set is a 404 that lists the one served", async () => {
    for (const path of [
      "/api/ogc/collections/location-proofs/tiles/WorldCRS84Quad/0/0/0",
      "/api/ogc/collections/location-proofs/tiles/WorldCRS84Quad",
      "/api/ogc/tileMatrixSets/WorldCRS84Quad",
    ]) {
      const res = await app.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.message).toMatch(/Available: WebMercatorQuad/);
    }
  });

  it("a path that is not a tile is a 404, never a tile", async () => {
    for (const path of [`${TILES}/1/0`, `${TILES}/1/0/0/0`, `${TILES}/1/0/0.pbf`]) {
      const res = await app.get(path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
    }
  });

  it.each([
    ["datetime=yesterday", "datetime"],
    ["datetime=2026-02-30", "datetime"],
    ["chain=mars", "chain"],
    ["prover=0x12", "prover"],
    ["filter=chain%20%3D", "filter"],
    ["filter=nope%20%3D%201", "filter"],
    ["bbox=0,0,1,1", "bbox"],
    ["limit=10", "limit"],
    ["chain=base&chain=celo", "chain"],
  ])("?%s → 400 naming %s", async (query, parameter) => {
    const res = await app.get(`${TILES}/0/0/0?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe(parameter);
  });
});

describe("caching", () => {
  it("an empty tile is a cacheable 200: an MVT whose layers hold no feature", async () => {
    // The South Atlantic far from any proof.
    const { res, decoded, bytes } = await tile(tileAt(-20, -50, 10));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.mapbox-vector-tile");
    expect(res.headers.get("cache-control")).toMatch(/^public/);
    expect(res.headers.get("etag")).toMatch(/^"/);
    // Both layers are written without features; a decoder (here MapLibre's) reads no layer, no feature.
    expect(decoded!.total).toBe(0);
    expect(decoded!.layers).toEqual([]);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.length).toBeLessThan(100);
  });

  // The ETag names the data version too (lib/data-version/), so it changes whenever any proof does; what stays true
  // is that a tile whose own proofs did not change still revalidates as a 304 under its old ETag.
  it("answers If-None-Match with 304, and a tile's ETag changes when its proofs do; a tile whose proofs did not revalidates as a 304", async () => {
    const berlin = tileAt(13.405, 52.52, 14);
    const elsewhere = tileAt(tokyoLon, tokyoLat, 14);
    const before = await tile(berlin);
    const other = await tile(elsewhere);
    const etag = before.res.headers.get("etag")!;
    const again = await app.request(`${TILES}/14/${berlin.x}/${berlin.y}`, {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    const [row] = sampleProofs({ count: 1, seed: 99, now: END }).map((r) => ({
      ...r,
      longitude: 13.405,
      latitude: 52.52,
      minLon: 13.405,
      maxLon: 13.405,
      minLat: 52.52,
      maxLat: 52.52,
      geometry: { type: "Point", coordinates: [13.405, 52.52] },
    }));
    await insertProofs(app.db, [row!]);
    const after = await tile(berlin);
    expect(after.res.headers.get("etag")).not.toBe(etag);
    expect(after.decoded!.total).toBe(before.decoded!.total + 1);
    expect(after.decoded!.points.map((p) => p.properties.uid)).toContain(row!.uid);
    const unchanged = await app.request(`${TILES}/14/${elsewhere.x}/${elsewhere.y}`, {
      headers: { "if-none-match": other.res.headers.get("etag")! },
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get("etag")).not.toBe(other.res.headers.get("etag"));
    const changed = await app.request(`${TILES}/14/${berlin.x}/${berlin.y}`, {
      headers: { "if-none-match": etag },
    });
    expect(changed.status).toBe(200);
  });
});
