import { describe, expect, it } from "vitest";
import { CRS_SYSTEMS, crsByName } from "../../lib/crs/systems.js";
import { envelope, positionFrom, positionTo } from "../../lib/crs/transform.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith, type TestApp } from "../helpers/app.js";
import { POINT_ITEMS as ITEMS, SHAPE_ITEMS as SHAPES, epsgUri as uri } from "../helpers/routes.js";

// OGC API - Features Part 2 over HTTP: crs on items and single items of both collections, bbox-crs, Content-Crs, the
// collections' crs lists, and a 400 that lists the systems for anything else. The coordinates are checked against
// lib/crs/transform.ts here, and that against PROJ in tests/crs/proj-truth.test.ts.

let app: TestApp;
const rows = sampleProofs({ count: 300, seed: 7, now: new Date("2025-06-01T00:00:00Z") });
appWith(rows, (a) => {
  app = a;
});

const system = (code: number) => crsByName(uri(code))!;
type Feature = { id: string; geometry: { type: string; coordinates: unknown } | null; bbox?: number[] };

/** Every position of nested coordinates through f. */
const mapPositions = (c: unknown, f: (p: number[]) => number[]): unknown =>
  Array.isArray(c) && typeof c[0] === "number"
    ? f(c as number[])
    : (c as unknown[]).map((x) => mapPositions(x, f));

function expectClose(actual: unknown, expected: unknown, tolerance: number) {
  if (typeof expected === "number") {
    expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(tolerance);
    return;
  }
  expect(Array.isArray(actual)).toBe(true);
  expect((actual as unknown[]).length).toBe((expected as unknown[]).length);
  (expected as unknown[]).forEach((e, i) => {
    expectClose((actual as unknown[])[i], e, tolerance);
  });
}

describe("crs on items", () => {
  for (const [path, code] of [
    [ITEMS, 27700],
    [ITEMS, 3857],
    [SHAPES, 3857],
    [SHAPES, 28992],
    [SHAPES, 3035],
  ] as const) {
    it(`${path.split("/")[4]} in EPSG:${code}: the same features, each geometry transformed, Content-Crs naming it`, async () => {
      const plain = await app.get(`${path}?limit=100`);
      const res = await app.get(`${path}?limit=100&crs=${encodeURIComponent(uri(code))}`);
      expect(res.status).toBe(200);
      expect(plain.headers.get("content-crs")).toBe("<http://www.opengis.net/def/crs/OGC/1.3/CRS84>");
      expect(res.headers.get("content-crs")).toBe(`<${uri(code)}>`);
      const to = positionTo(system(code))!;
      const shapes = new Set<string>();
      res.body.features.forEach((f: Feature, i: number) => {
        const before: Feature = plain.body.features[i];
        expect(f.id).toBe(before.id);
        if (!before.geometry) {
          expect(f.geometry).toBeNull();
          return;
        }
        shapes.add(before.geometry.type);
        expect(f.geometry!.type).toBe(before.geometry.type);
        expectClose(f.geometry!.coordinates, mapPositions(before.geometry.coordinates, to), 0.0011);
        if (before.bbox) expect(f.bbox).toEqual(envelope(f.geometry!));
        else expect(f.bbox).toBeUndefined();
      });
      if (path === SHAPES) expect([...shapes].length).toBeGreaterThan(1);
    });
  }

  it("EPSG:4326 puts latitude first, CRS84 longitude first", async () => {
    const plain = await app.get(`${ITEMS}?limit=50`);
    const res = await app.get(`${ITEMS}?limit=50&crs=${encodeURIComponent(uri(4326))}`);
    res.body.features.forEach((f: Feature, i: number) => {
      const before = plain.body.features[i].geometry;
      if (before) {
        expect(f.geometry!.coordinates).toEqual([...before.coordinates].reverse());
      }
    });
  });

  it("the next link keeps crs", async () => {
    const res = await app.get(`${ITEMS}?limit=5&crs=%5BEPSG%3A27700%5D`);
    const next = res.body.links.find((l: { rel: string }) => l.rel === "next").href as string;
    expect(new URL(next).searchParams.get("crs")).toBe("[EPSG:27700]");
  });

  it("refuses an unknown or unsupported crs with a 400 that lists the supported ones", async () => {
    for (const value of ["EPSG:27700", uri(4269), "nonsense"]) {
      const res = await app.get(`${ITEMS}?crs=${encodeURIComponent(value)}`);
      expect(res.status).toBe(400);
      expect(res.body.parameter).toBe("crs");
      for (const s of CRS_SYSTEMS) expect(res.body.description ?? res.body.message).toContain(s.uri);
    }
    const bad = await app.get(`${ITEMS}?bbox=0,0,1,1&bbox-crs=${encodeURIComponent(uri(2154))}`);
    expect(bad.status).toBe(400);
    expect(bad.body.parameter).toBe("bbox-crs");
  });
});

describe("crs on single items", () => {
  it("transforms the point and the shape, with Content-Crs", async () => {
    const row = rows.find((r) => r.geometry && r.geometry.type !== "Point")!;
    for (const path of [ITEMS, SHAPES]) {
      const plain = await app.get(`${path}/${row.uid}`);
      const res = await app.get(`${path}/${row.uid}?crs=${encodeURIComponent(uri(25832))}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-crs")).toBe(`<${uri(25832)}>`);
      const to = positionTo(system(25832))!;
      expectClose(res.body.geometry.coordinates, mapPositions(plain.body.geometry.coordinates, to), 0.0011);
      if (path === SHAPES) expect(res.body.bbox).toEqual(envelope(res.body.geometry));
    }
  });
});

describe("bbox-crs", () => {
  it("a box in EPSG:27700 finds what the CRS84 box enclosing it finds", async () => {
    const s = system(27700);
    const box = [400000, 100000, 600000, 300000];
    const res = await app.get(
      `${SHAPES}?limit=1000&bbox=${box.join(",")}&bbox-crs=${encodeURIComponent(uri(27700))}`,
    );
    expect(res.status).toBe(200);
    const back = positionFrom(s)!;
    const corners = [
      back([box[0]!, box[1]!]),
      back([box[2]!, box[3]!]),
      back([box[0]!, box[3]!]),
      back([box[2]!, box[1]!]),
    ];
    const west = Math.min(...corners.map((c) => c[0]!)) - 0.05;
    const east = Math.max(...corners.map((c) => c[0]!)) + 0.05;
    const south = Math.min(...corners.map((c) => c[1]!)) - 0.05;
    const north = Math.max(...corners.map((c) => c[1]!)) + 0.05;
    const wide = await app.get(`${SHAPES}?limit=1000&bbox=${[west, south, east, north].join(",")}`);
    const found = new Set(res.body.features.map((f: Feature) => f.id));
    // Everything found lies in the wider CRS84 box, and everything without geometry is found (Part 1's rule).
    for (const id of found) expect(wide.body.features.some((f: Feature) => f.id === id)).toBe(true);
    expect(res.body.numberMatched).toBeLessThanOrEqual(wide.body.numberMatched);
    expect(res.body.features.filter((f: Feature) => f.geometry === null).length).toBe(
      rows.filter((r) => r.minLon === null).length,
    );
  });

  it("EPSG:4326 boxes are latitude first", async () => {
    const a = await app.get(`${ITEMS}?limit=1000&bbox=-10,35,30,60`);
    const b = await app.get(
      `${ITEMS}?limit=1000&bbox=35,-10,60,30&bbox-crs=${encodeURIComponent(uri(4326))}`,
    );
    expect(b.status).toBe(200);
    expect(b.body.numberMatched).toBe(a.body.numberMatched);
  });
});

describe("collections", () => {
  it("list every served crs and CRS84 as the storage crs", async () => {
    const res = await app.get("/api/ogc/collections");
    for (const c of res.body.collections) {
      expect(c.crs).toEqual(CRS_SYSTEMS.map((s) => s.uri));
      expect(c.storageCrs).toBe("http://www.opengis.net/def/crs/OGC/1.3/CRS84");
    }
    const conformance = await app.get("/api/ogc/conformance");
    expect(conformance.body.conformsTo).toContain(
      "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
    );
  });
});
