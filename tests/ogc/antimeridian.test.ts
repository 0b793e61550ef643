import { eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, queryRows } from "../../db/client.js";
import { locationProofs } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { decodeLocation } from "../../lib/location/decode.js";
import { computeExtent } from "../../lib/ogc/collections.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { geojsonProof } from "../helpers/geojson-proofs.js";

/**
 * Geometries that cross, touch and wrap the antimeridian: stored with exact bounds (west > east when crossing,
 * RFC 7946 §5.2) and a representative point on the shape, matched by bbox as the two boxes they are — on the native
 * list, the OGC point collection and the OGC shapes collection.
 */

const geojson = geojsonProof;

// Fiji → Samoa the short way: 0.2° of longitude, not the 359.8° between.
const CROSSING_LINE = {
  type: "LineString",
  coordinates: [
    [179.9, -17.8],
    [-179.9, -13.8],
  ],
};
const CROSSING_SQUARE = {
  type: "Polygon",
  coordinates: [
    [
      [170, 0],
      [-170, 0],
      [-170, 10],
      [170, 10],
      [170, 0],
    ],
  ],
};
const TOUCHES_EAST = {
  type: "Polygon",
  coordinates: [
    [
      [170, 20],
      [180, 20],
      [180, 30],
      [170, 30],
      [170, 20],
    ],
  ],
};
const TOUCHES_WEST = {
  type: "Polygon",
  coordinates: [
    [
      [-180, 20],
      [-170, 20],
      [-170, 30],
      [-180, 30],
      [-180, 20],
    ],
  ],
};
// A line once round the world at 45°N, and a cap around the north pole: every longitude.
const WRAPS = {
  type: "LineString",
  coordinates: [
    [-180, 45],
    [-90, 45],
    [0, 45],
    [90, 45],
    [180, 45],
  ],
};
const POLAR_CAP = {
  type: "Polygon",
  coordinates: [
    [
      [-180, 80],
      [-90, 80],
      [0, 80],
      [90, 80],
      [180, 80],
      [180, 90],
      [-180, 90],
      [-180, 80],
    ],
  ],
};

describe("bounds and representative point of the decoder", () => {
  const decode = (g: unknown) =>
    decodeLocation({ locationType: "geojson", location: JSON.stringify(g), srs: "EPSG:4326" });

  it("stores a geometry crossing ±180° with west > east and its point on the shape", () => {
    expect(decode(CROSSING_LINE)).toMatchObject({ bbox: [179.9, -17.8, -179.9, -13.8], longitude: 179.9 });
    const square = decode(CROSSING_SQUARE);
    expect(square.bbox).toEqual([170, 0, -170, 10]);
    // The middle of the square is on the antimeridian, not at 0° (the far side of the globe).
    expect([square.longitude, square.latitude]).toEqual([180, 5]);
    const points = decode({
      type: "MultiPoint",
      coordinates: [
        [179.9, -17.8],
        [-179.9, -13.8],
      ],
    });
    expect(points.bbox).toEqual([179.9, -17.8, -179.9, -13.8]);
  });

  it("keeps plain bounds for shapes that touch ±180° from one side, or span much but do not cross", () => {
    expect(decode(TOUCHES_EAST)).toMatchObject({ bbox: [170, 20, 180, 30], longitude: 175, latitude: 25 });
    expect(decode(TOUCHES_WEST)).toMatchObject({ bbox: [-180, 20, -170, 30], longitude: -175, latitude: 25 });
    expect(
      decode({
        type: "LineString",
        coordinates: [
          [-100, 0],
          [0, 1],
          [100, 0],
        ],
      }).bbox,
    ).toEqual([-100, 0, 100, 1]);
  });

  it("gives a shape that wraps the globe every longitude", () => {
    expect(decode(WRAPS).bbox).toEqual([-180, 45, 180, 45]);
    expect(decode(POLAR_CAP)).toMatchObject({ bbox: [-180, 80, 180, 90], longitude: 0, latitude: 85 });
  });

  it("puts every representative point inside its bounds (generated geometries)", () => {
    const within = (x: number, [w, , e]: [number, number, number, number]) =>
      w <= e ? x >= w && x <= e : x >= w || x <= e;
    fc.assert(
      fc.property(geometryArb, (g) => {
        const d = decode(g);
        expect(d.bbox).not.toBeNull();
        expect(within(d.longitude!, d.bbox!)).toBe(true);
        expect(d.latitude! >= d.bbox![1] && d.latitude! <= d.bbox![3]).toBe(true);
      }),
      { numRuns: 500, seed: 9 },
    );
  });
});

/** Positions with a bias to ±180 and to few distinct values, so crossings, touches and ties are common. */
const lon = fc.oneof(
  fc.constantFrom(-180, 180, 179.9, -179.9, 170, -170, 0, 90, -90),
  fc.integer({ min: -180, max: 180 }),
);
const position = fc.tuple(lon, fc.integer({ min: -89, max: 89 }));
const ringArb = fc.array(position, { minLength: 3, maxLength: 6 }).map((ps) => [...ps, ps[0]!]);
const geometryArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.array(position, { minLength: 1, maxLength: 5 }).map((c) => ({ type: "MultiPoint", coordinates: c })),
  fc.array(position, { minLength: 2, maxLength: 6 }).map((c) => ({ type: "LineString", coordinates: c })),
  fc
    .array(fc.array(position, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 3 })
    .map((c) => ({ type: "MultiLineString", coordinates: c })),
  fc.array(ringArb, { minLength: 1, maxLength: 2 }).map((c) => ({ type: "Polygon", coordinates: c })),
  fc
    .array(fc.array(ringArb, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 })
    .map((c) => ({ type: "MultiPolygon", coordinates: c })),
  fc
    .array(
      fc.oneof(
        fc
          .array(position, { minLength: 2, maxLength: 4 })
          .map((c) => ({ type: "LineString", coordinates: c })),
        fc.array(ringArb, { minLength: 1, maxLength: 1 }).map((c) => ({ type: "Polygon", coordinates: c })),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((geometries) => ({ type: "GeometryCollection", geometries })),
);

let app: TestApp;
const SHAPES = [
  geojson("crossing line", CROSSING_LINE),
  geojson("crossing square", CROSSING_SQUARE),
  geojson("touches east", TOUCHES_EAST),
  geojson("touches west", TOUCHES_WEST),
  geojson("wraps", WRAPS),
  geojson("polar cap", POLAR_CAP),
];
const uid = (name: string) => SHAPES.find((r) => r.memo === name)!.uid;

beforeAll(async () => {
  app = await createTestApp();
  // A city-sized and well-spread background, so the planner has a reason to use the index.
  await insertProofs(app.db, [...sampleProofs({ count: 3000, seed: 77 }), ...SHAPES]);
  await app.db.execute(sql`analyze location_proofs`);
});
afterAll(() => app.close());

const NATIVE = "/api/v0/location-proofs";
const POINTS = "/api/ogc/collections/location-proofs/items";
const SHAPE_ITEMS = "/api/ogc/collections/location-proof-shapes/items";

/** The test shapes a bbox returns on each endpoint (only our six are looked at). */
async function found(bbox: string) {
  const mine = (ids: string[]) =>
    SHAPES.filter((r) => ids.includes(r.uid))
      .map((r) => r.memo)
      .sort();
  const native = await app.get(`${NATIVE}?limit=1000&chain=base&bbox=${bbox}`);
  const points = await app.get(`${POINTS}?limit=1000&chain=base&bbox=${bbox}`);
  const shapes = await app.get(`${SHAPE_ITEMS}?limit=1000&chain=base&bbox=${bbox}`);
  for (const res of [native, points, shapes]) expect(res.status, bbox).toBe(200);
  return {
    native: mine(native.body.data.map((d: { uid: string }) => d.uid)),
    points: mine(points.body.features.map((f: { id: string }) => f.id)),
    shapes: mine(shapes.body.features.map((f: { id: string }) => f.id)),
  };
}

describe("bbox across the antimeridian", () => {
  it("an Africa bbox does not return the ±180° line (nor any of the shapes)", async () => {
    expect(await found("0,-20,10,-10")).toEqual({ native: [], points: [], shapes: [] });
    expect(await found("-20,-40,50,40")).toEqual({ native: [], points: [], shapes: [] });
  });

  it("a box on either side of ±180° finds the crossing shapes by the part on that side", async () => {
    // West of 180 (Fiji's side) and east of -180 (Samoa's side): the line's two ends.
    expect((await found("179,-18,180,-17")).shapes).toEqual(["crossing line"]);
    expect((await found("-180,-14,-179,-13")).shapes).toEqual(["crossing line"]);
    expect((await found("-180,-14,-179,-13")).native).toEqual(["crossing line"]);
    const square = await found("-175,2,-172,8");
    expect(square.native).toEqual(["crossing square"]);
    expect(square.shapes).toEqual(["crossing square"]);
    // The square's point is (180, 5): not in this box, so the point collection leaves it out.
    expect(square.points).toEqual([]);
    expect((await found("179,4,180,6")).points).toEqual(["crossing square"]);
  });

  it("a crossing query box meets crossing, touching and wrapping shapes", async () => {
    const all = await found("175,-20,-175,50");
    expect(all.native).toEqual(["crossing line", "crossing square", "touches east", "touches west", "wraps"]);
    expect(all.shapes).toEqual(all.native);
    // Points: the line's (179.9, -17.8), the square's (180, 5), touches east (175, 25), touches west (-175, 25);
    // not the world line's (0, 45).
    expect(all.points).toEqual(["crossing line", "crossing square", "touches east", "touches west"]);
  });

  it("a shape touching ±180° from one side is found only from that side", async () => {
    expect((await found("171,21,179,29")).native).toEqual(["touches east"]);
    expect((await found("-179,21,-171,29")).native).toEqual(["touches west"]);
  });

  it("a shape that wraps the globe is met by any box at its latitude", async () => {
    for (const box of ["0,40,1,50", "-100,40,-99,50", "120,44,121,46"]) {
      expect((await found(box)).native, box).toEqual(["wraps"]);
    }
    expect((await found("33,85,34,86")).native).toEqual(["polar cap"]);
  });

  it("the native bbox field and the OGC shape's bbox show west > east", async () => {
    const line = await app.get(`${NATIVE}/${uid("crossing line")}`);
    expect(line.body.bbox).toEqual([179.9, -17.8, -179.9, -13.8]);
    const shape = await app.get(`${SHAPE_ITEMS}/${uid("crossing square")}`);
    expect(shape.body.bbox).toEqual([170, 0, -170, 10]);
    const point = await app.get(`${POINTS}/${uid("crossing square")}`);
    expect(point.body.geometry).toEqual({ type: "Point", coordinates: [180, 5] });
  });

  it("the collection extent spans every longitude when a shape crosses", async () => {
    // Alone, the two shapes' bounds are 170…180 and 170…-170: the smallest west is 170, the largest east 180,
    // which would leave out the square's part east of -180. (Inside a transaction that is rolled back.)
    const keep = (names: string[]) =>
      sql`${locationProofs.memo} not in ${names} or ${locationProofs.chain} <> 'base'`;
    const extentWith = async (names: string[]) => {
      let extent: unknown;
      await app.db
        .transaction(async (tx) => {
          await tx.delete(locationProofs).where(keep(names));
          extent = (await computeExtent(tx as unknown as Db)).spatial.bbox[0];
          throw new Error("rollback");
        })
        .catch((error: Error) => {
          if (error.message !== "rollback") throw error;
        });
      return extent;
    };
    expect(await extentWith(["crossing square", "touches east"])).toEqual([-180, 0, 180, 30]);
    expect(await extentWith(["touches east"])).toEqual([170, 20, 180, 30]);
    expect((await app.get(`${POINTS}?limit=1`)).body.numberMatched).toBe(3000 + SHAPES.length);
  });

  it("S_INTERSECTS in the shapes collection tests both parts of crossing bounds", async () => {
    const filter = "S_INTERSECTS(geometry, POLYGON((-175 2, -172 2, -172 8, -175 8, -175 2)))";
    const res = await app.get(`${SHAPE_ITEMS}?limit=1000&filter=${encodeURIComponent(filter)}`);
    expect(res.body.features.map((f: { id: string }) => f.id)).toContain(uid("crossing square"));
    const africa = "S_INTERSECTS(geometry, POLYGON((0 -20, 10 -20, 10 -10, 0 -10, 0 -20)))";
    const none = await app.get(`${SHAPE_ITEMS}?limit=1000&filter=${encodeURIComponent(africa)}`);
    expect(none.body.features.map((f: { id: string }) => f.id)).not.toContain(uid("crossing line"));
  });
});

describe("the bbox filter uses the GiST index", () => {
  async function plan(path: string, where: string): Promise<string> {
    const { whereClause } = await import("../../lib/proofs/filter.js");
    const { orderBy, orderKeys } = await import("../../lib/proofs/sort.js");
    const { itemsFilter } = await import("../../lib/ogc/items.js");
    const { COLLECTIONS } = await import("../../lib/ogc/vocabulary.js");
    const [w, s, e, n] = where.split(",").map(Number) as [number, number, number, number];
    const bbox = { minLon: w, minLat: s, maxLon: e, maxLat: n };
    const filter =
      path === "native"
        ? { bbox }
        : itemsFilter({ bbox }, COLLECTIONS[path as "location-proofs" | "location-proof-shapes"]);
    const query = app.db
      .select()
      .from(locationProofs)
      .where(whereClause(filter))
      .orderBy(...orderBy(orderKeys(), { avoidIndex: true }))
      .limit(100)
      .getSQL();
    const rows = await queryRows<{ "QUERY PLAN": string }>(app.db, sql`explain ${query}`);
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  }

  it.each([
    ["native", "13.3,52.4,13.5,52.6"],
    ["native", "179,-20,-179,-10"],
    ["location-proofs", "13.3,52.4,13.5,52.6"],
    ["location-proofs", "179,-20,-179,-10"],
    ["location-proof-shapes", "13.3,52.4,13.5,52.6"],
    ["location-proof-shapes", "179,-20,-179,-10"],
  ])("%s, bbox %s", async (path, box) => {
    const text = await plan(path, box);
    const crossing = box.startsWith("179");
    expect(text).not.toMatch(/Seq Scan/);
    if (path === "location-proofs") {
      // The representative point: its own index, a crossing box as its two halves.
      expect(text.match(/location_proofs_point_gist/g)?.length, text).toBe(crossing ? 2 : 1);
      expect(text, text).not.toMatch(/location_proofs_(crossing_)?bounds_gist/);
      return;
    }
    // A plain box: the box on the main index, the box 360° east on the crossing bounds' partial index. A crossing
    // box: its two unwrapped forms on the main index.
    expect(text.match(/location_proofs_bounds_gist/g)?.length, text).toBe(crossing ? 2 : 1);
    expect(text.match(/location_proofs_crossing_bounds_gist/g)?.length ?? 0, text).toBe(crossing ? 0 : 1);
  });
});

describe("the location columns", () => {
  it("are null together or set together (a check constraint), so 'no geometry' is one indexed condition", async () => {
    const [row] = SHAPES;
    const broken = {
      ...row!,
      uid: `0x${"c".repeat(64)}`,
      minLon: null,
      minLat: null,
      maxLon: null,
      maxLat: null,
    };
    await expect(insertProofs(app.db, [broken])).rejects.toThrow();
    const none = { ...broken, geometry: null, longitude: null, latitude: null };
    await insertProofs(app.db, [none]);
    await app.db.delete(locationProofs).where(eq(locationProofs.uid, none.uid));
  });
});
