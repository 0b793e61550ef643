import { describe, expect, it } from "vitest";
import { CRS_SYSTEMS, type CrsSystem, crsByName } from "../../lib/crs/systems.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import type { Expr } from "../../lib/ogc/cql2/ast.js";
import { parseFilter } from "../../lib/ogc/cql2/index.js";
import { appWith, type TestApp } from "../helpers/app.js";
import { POINT_ITEMS as POINTS, SHAPE_ITEMS as SHAPES, epsgUri as uri } from "../helpers/routes.js";
import { cs2cs } from "./cs2cs.js";

// filter-crs (OGC API - Features Part 3): a filter's geometry literals written in any system `crs` serves are read
// as CRS84, in both encodings. The truth is PROJ's (cs2cs, tests/crs/cs2cs.ts): a position is written as cs2cs puts
// it in the system, and must come back where cs2cs puts it back; over HTTP, a filter written in another system
// selects what the same filter in CRS84 selects, on both collections and on a tile.

const epsgOf = (s: CrsSystem) => (s.code === "OGC:CRS84" ? "OGC:CRS84" : s.code);
/** Longitude, latitude → EPSG:4326's order, the one cs2cs reads WGS 84 in. */
const latLon = (ps: number[][]) => ps.map(([lon, lat]) => [lat!, lon!]);
/** Metres between two CRS84 positions (small distances). */
const metres = (a: number[], b: number[]) =>
  Math.hypot((a[0]! - b[0]!) * Math.cos((b[1]! * Math.PI) / 180), a[1]! - b[1]!) * 111_320;

/**
 * Inside every system's area of use: points near its middle, and near its corners where no datum shift applies (at
 * a corner out at sea PROJ picks another transformation than the one the systems table documents).
 */
function pointsOf(s: CrsSystem): number[][] {
  const [w, south, e, n] = s.areaOfUse;
  const lat = (y: number) => Math.max(Math.min(y, 84), -80);
  const mx = (w + e) / 2;
  const my = lat((south + n) / 2);
  const d = 0.1;
  const middle = [
    [mx, my],
    [mx + 0.37, my - 0.21],
  ];
  return s.accuracy !== null ? middle : [...middle, [w + d, lat(south + d)], [e - d, lat(n - d)]];
}

type PointNode = { kind: "point"; coordinates: number[] };
const spatialArg = (e: Expr) => {
  if (e.kind !== "spatial") throw new Error(`not a spatial predicate: ${e.kind}`);
  return e.args[1] as unknown;
};

describe("filter-crs: literals written in a system come back to CRS84 as PROJ puts them", () => {
  for (const s of CRS_SYSTEMS.filter((x) => x.code !== "OGC:CRS84")) {
    const tolerance = s.accuracy ?? 0.001;
    it(`${s.code}: POINT and a GeoJSON Point within ${tolerance} m of cs2cs's inverse`, () => {
      const wgs = pointsOf(s);
      const written = cs2cs("EPSG:4326", epsgOf(s), latLon(wgs));
      const truth = cs2cs(epsgOf(s), "EPSG:4326", written).map(([la, lo]) => [lo!, la!]);
      written.forEach((p, i) => {
        const text = parseFilter(`S_INTERSECTS(geometry, POINT(${p[0]} ${p[1]}))`, "cql2-text", s);
        const json = parseFilter(
          JSON.stringify({
            op: "s_intersects",
            args: [{ property: "geometry" }, { type: "Point", coordinates: p }],
          }),
          "cql2-json",
          s,
        );
        const fromText = (spatialArg(text) as PointNode).coordinates;
        expect(metres(fromText, truth[i]!), `${s.code} ${p}`).toBeLessThanOrEqual(tolerance);
        expect(spatialArg(json)).toEqual(spatialArg(text));
      });
    });
  }

  it("a POLYGON's every vertex is transformed, holes included (EPSG:27700, cs2cs)", () => {
    const outer = [
      [-0.3, 51.4],
      [0.1, 51.4],
      [0.1, 51.7],
      [-0.3, 51.7],
      [-0.3, 51.4],
    ];
    const hole = [
      [-0.2, 51.5],
      [-0.1, 51.5],
      [-0.1, 51.6],
      [-0.2, 51.5],
    ];
    const bng = crsByName("[EPSG:27700]")!;
    const rings = [outer, hole].map((r) => cs2cs("EPSG:4326", "EPSG:27700", latLon(r)));
    const wkt = `POLYGON(${rings.map((r) => `(${r.map((p) => p.join(" ")).join(", ")})`).join(", ")})`;
    const tree = parseFilter(`S_WITHIN(geometry, ${wkt})`, "cql2-text", bng);
    const back = rings.map((r) => cs2cs("EPSG:27700", "EPSG:4326", r).map(([la, lo]) => [lo!, la!]));
    const got = (spatialArg(tree) as { coordinates: number[][][] }).coordinates;
    got.forEach((ring, i) => {
      ring.forEach((p, j) => {
        expect(metres(p, back[i]![j]!)).toBeLessThanOrEqual(bng.accuracy!);
      });
    });
    // The ring stays closed once transformed (first = last, exactly).
    expect(got[0]![0]).toEqual(got[0]!.at(-1));
  });

  it("BBOX in EPSG:3857 becomes the CRS84 box that encloses it (cs2cs's corners inside)", () => {
    const merc = crsByName("http://www.opengis.net/def/crs/EPSG/0/3857")!;
    const [lo, hi] = cs2cs("EPSG:4326", "EPSG:3857", [
      [51.4, -0.3],
      [51.7, 0.1],
    ]);
    const tree = parseFilter(
      `S_INTERSECTS(geometry, BBOX(${lo![0]}, ${lo![1]}, ${hi![0]}, ${hi![1]}))`,
      "cql2-text",
      merc,
    );
    const box = spatialArg(tree) as { minLon: number; minLat: number; maxLon: number; maxLat: number };
    expect(box.minLon).toBeCloseTo(-0.3, 6);
    expect(box.maxLon).toBeCloseTo(0.1, 6);
    expect(box.minLat).toBeCloseTo(51.4, 6);
    expect(box.maxLat).toBeCloseTo(51.7, 6);
  });

  it("EPSG:4326 reads latitude first; the same literal in CRS84 reads longitude first", () => {
    const wgs = crsByName("[EPSG:4326]")!;
    const tree = parseFilter("S_INTERSECTS(geometry, POINT(51.5 -0.12))", "cql2-text", wgs);
    expect((spatialArg(tree) as PointNode).coordinates).toEqual([-0.12, 51.5]);
    const plain = parseFilter("S_INTERSECTS(geometry, POINT(51.5 -0.12))");
    expect((spatialArg(plain) as PointNode).coordinates).toEqual([51.5, -0.12]);
  });
});

let app: TestApp;
const rows = sampleProofs({ count: 400, seed: 11, now: new Date("2025-06-01T00:00:00Z") });
appWith(rows, (a) => {
  app = a;
});

/** A CRS84 polygon that cuts through the sample's London and Berlin clusters (some proofs in, some out). */
const AREA = [
  [-0.16, 51.42],
  [13.42, 52.45],
  [13.5, 52.62],
  [-0.1, 51.58],
  [-0.16, 51.42],
];

async function ids(path: string, query: Record<string, string>): Promise<string[]> {
  const res = await app.get(`${path}?limit=1000&${new URLSearchParams(query)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.features.map((f: { id: string }) => f.id).sort();
}

describe("filter-crs over HTTP", () => {
  const wkt = (ps: number[][]) => `POLYGON((${ps.map((p) => p.join(" ")).join(", ")}))`;
  const json = (ps: number[][]) =>
    JSON.stringify({
      op: "s_intersects",
      args: [{ property: "geometry" }, { type: "Polygon", coordinates: [ps] }],
    });

  for (const code of [3857, 4326, 3035]) {
    for (const path of [POINTS, SHAPES]) {
      it(`EPSG:${code} on ${path.split("/")[4]}: the same features as the CRS84 filter, text and JSON`, async () => {
        const there = cs2cs("EPSG:4326", `EPSG:${code}`, latLon(AREA));
        const expected = await ids(path, { filter: `S_INTERSECTS(geometry, ${wkt(AREA)})` });
        expect(expected.length).toBeGreaterThan(0);
        const all = await ids(path, {});
        expect(expected.length).toBeLessThan(all.length);
        const crs = uri(code);
        expect(
          await ids(path, { filter: `S_INTERSECTS(geometry, ${wkt(there)})`, "filter-crs": crs }),
        ).toEqual(expected);
        expect(
          await ids(path, { filter: json(there), "filter-lang": "cql2-json", "filter-crs": crs }),
        ).toEqual(expected);
        // Not vacuous: the same numbers read as CRS84 are not a valid filter, or select something else.
        const asCrs84 = await app.get(
          `${path}?limit=1000&${new URLSearchParams({ filter: `S_INTERSECTS(geometry, ${wkt(there)})` })}`,
        );
        if (asCrs84.status === 200)
          expect(asCrs84.body.features.map((f: { id: string }) => f.id).sort()).not.toEqual(expected);
        else expect(asCrs84.status).toBe(400);
      });
    }
  }

  it("a tile takes filter-crs: the same tile as the CRS84 filter's", async () => {
    const tile = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/0/0/0";
    const there = cs2cs("EPSG:4326", "EPSG:3857", latLon(AREA));
    const a = await app.request(
      `${tile}?${new URLSearchParams({ filter: `S_INTERSECTS(geometry, ${wkt(AREA)})` })}`,
    );
    const b = await app.request(
      `${tile}?${new URLSearchParams({ filter: `S_INTERSECTS(geometry, ${wkt(there)})`, "filter-crs": uri(3857) })}`,
    );
    const c = await app.request(tile);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const [ba, bb, bc] = await Promise.all([a, b, c].map(async (r) => Buffer.from(await r.arrayBuffer())));
    expect(bb!.equals(ba!)).toBe(true);
    expect(bc!.equals(ba!)).toBe(false);
  });

  it("an unsupported filter-crs is a 400 that lists the supported systems", async () => {
    const res = await app.get(
      `${POINTS}?${new URLSearchParams({ filter: "S_INTERSECTS(geometry, POINT(0 0))", "filter-crs": uri(9999) })}`,
    );
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe("filter-crs");
    for (const s of CRS_SYSTEMS) expect(res.body.detail ?? res.body.description).toContain(s.uri);
  });

  it("a literal outside its system is a 400 on filter, never a 500", async () => {
    for (const [code, filter] of [
      [4326, "S_INTERSECTS(geometry, POINT(95 10))"],
      [3857, "S_INTERSECTS(geometry, BBOX(1, 2, 0, 3))"],
      [3035, "S_INTERSECTS(geometry, POINT(1e30 1e30))"],
    ] as const) {
      const res = await app.get(`${POINTS}?${new URLSearchParams({ filter, "filter-crs": uri(code) })}`);
      expect(res.status, `${code} ${filter}`).toBe(400);
      expect(res.body.parameter).toBe("filter");
    }
  });
});
