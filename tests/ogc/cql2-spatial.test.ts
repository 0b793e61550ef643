import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { cql2Filter } from "../../lib/ogc/cql2/index.js";
import { appWith, type TestApp } from "../helpers/app.js";
import { geojsonProof } from "../helpers/geojson-proofs.js";

/**
 * The spatial functions of CQL2 (issue 34): exact on every geometry of location-proof-shapes (PostGIS on the stored
 * shape, migration 0006), on the points of location-proofs, in both encodings, with three-valued logic where a
 * proof has no geometry, and a shape across the antimeridian read the short way round.
 */

const proof = (name: string, geometry: unknown | null) => geojsonProof(name, geometry);

const ring = (...ps: [number, number][]) => [...ps, ps[0]!];
const SHAPES: Record<string, unknown> = {
  // Its box is [0, 10] x [0, 10]; the line is the diagonal.
  line: { type: "LineString", coordinates: ring([0, 0], [10, 10]).slice(0, 2) },
  // A square with a hole in the middle.
  holed: {
    type: "Polygon",
    coordinates: [ring([0, 20], [10, 20], [10, 30], [0, 30]), ring([4, 24], [6, 24], [6, 26], [4, 26])],
  },
  point: { type: "Point", coordinates: [50, 50] },
  multipoint: {
    type: "MultiPoint",
    coordinates: [
      [60, 60],
      [62, 62],
    ],
  },
  multiline: {
    type: "MultiLineString",
    coordinates: [
      [
        [70, 0],
        [72, 0],
      ],
      [
        [70, 2],
        [72, 2],
      ],
    ],
  },
  // Unclosed, as writers often store it: read closed.
  unclosed: {
    type: "Polygon",
    coordinates: [
      [
        [80, 0],
        [82, 0],
        [82, 2],
        [80, 2],
      ],
    ],
  },
  // 170°E → 170°W the short way: 20° across the antimeridian, not the 340° between.
  crossing: { type: "Polygon", coordinates: [ring([170, 0], [-170, 0], [-170, 10], [170, 10])] },
};
const rows = [...Object.entries(SHAPES).map(([n, g]) => proof(n, g)), proof("nowhere", null)];

let app: TestApp;
appWith(rows, (a) => {
  app = a;
});

const SHAPES_ITEMS = "/api/ogc/collections/location-proof-shapes/items";
const dialect = new PgDialect();
const POINT_ITEMS = "/api/ogc/collections/location-proofs/items";

/** The names the shapes collection, or the points one, answers a text filter with. */
const shapes = (filter: string, lang?: string) => names(SHAPES_ITEMS, filter, lang);
const points = (filter: string, lang?: string) => names(POINT_ITEMS, filter, lang);

async function names(path: string, filter: string, lang = "cql2-text"): Promise<string[]> {
  const res = await app.get(`${path}?limit=1000&filter-lang=${lang}&filter=${encodeURIComponent(filter)}`);
  expect(res.status, `${filter}: ${JSON.stringify(res.body).slice(0, 400)}`).toBe(200);
  return res.body.features.map((f: { properties: { memo: string } }) => f.properties.memo).sort();
}

const ALL = Object.keys(SHAPES).sort();

describe("spatial functions on location-proof-shapes: exact, not by bounding box", () => {
  it("a polygon that misses a line but overlaps its box does not return the line", async () => {
    const filter = "S_INTERSECTS(geometry, POLYGON((6 0, 10 0, 10 4, 6 4, 6 0)))";
    expect(await shapes(filter)).toEqual([]);
    // ...and one that crosses it does.
    expect(await shapes("S_INTERSECTS(geometry, POLYGON((4 0, 10 0, 10 6, 4 6, 4 0)))")).toEqual(["line"]);
    // S_DISJOINT is its negation, over every proof with a geometry (the one without is unknown, so absent).
    const disjoint = await shapes("S_DISJOINT(geometry, POLYGON((6 0, 10 0, 10 4, 6 4, 6 0)))");
    expect(disjoint).toEqual(ALL);
  });

  it("tests a polygon's hole, its boundary and its inside", async () => {
    expect(await shapes("S_INTERSECTS(geometry, POINT(5 25))")).toEqual([]);
    expect(await shapes("S_INTERSECTS(geometry, POINT(4 25))")).toEqual(["holed"]);
    expect(await shapes("S_TOUCHES(geometry, POINT(4 25))")).toEqual(["holed"]);
    expect(await shapes("S_CONTAINS(geometry, POINT(2 22))")).toEqual(["holed"]);
    expect(await shapes("S_CONTAINS(geometry, POINT(5 25))")).toEqual([]);
    expect(await shapes("S_TOUCHES(geometry, POLYGON((10 20, 12 20, 12 30, 10 30, 10 20)))")).toEqual([
      "holed",
    ]);
    expect(await shapes("S_OVERLAPS(geometry, POLYGON((8 20, 12 20, 12 30, 8 30, 8 20)))")).toEqual([
      "holed",
    ]);
    // S_WITHIN(literal, geometry) is S_CONTAINS(geometry, literal).
    expect(await shapes("S_WITHIN(POINT(2 22), geometry)")).toEqual(["holed"]);
  });

  it("answers every predicate on lines, multi-geometries and an unclosed stored ring", async () => {
    expect(await shapes("S_CROSSES(geometry, LINESTRING(0 10, 10 0))")).toEqual(["line"]);
    expect(await shapes("S_CROSSES(geometry, LINESTRING(71 -1, 71 3))")).toEqual(["multiline"]);
    expect(await shapes("S_EQUALS(geometry, MULTIPOINT((62 62), (60 60)))")).toEqual(["multipoint"]);
    expect(await shapes("S_EQUALS(geometry, POINT(50 50))")).toEqual(["point"]);
    expect(await shapes("S_WITHIN(geometry, BBOX(79, -1, 83, 3))")).toEqual(["unclosed"]);
    expect(
      await names(
        SHAPES_ITEMS,
        "S_WITHIN(geometry, GEOMETRYCOLLECTION(POLYGON((49 49, 51 49, 51 51, 49 51, 49 49)), POINT(0 0)))",
      ),
    ).toEqual(["point"]);
    expect(
      await names(
        SHAPES_ITEMS,
        "S_INTERSECTS(geometry, MULTIPOLYGON(((59 59, 61 59, 61 61, 59 61, 59 59))))",
      ),
    ).toEqual(["multipoint"]);
    // A multipoint of which only one point lies in the box is not within it.
    expect(await shapes("S_WITHIN(geometry, BBOX(59, 59, 61, 61))")).toEqual([]);
  });

  it("reads a shape across the antimeridian the short way, against the literal on either side", async () => {
    expect(await shapes("S_INTERSECTS(geometry, POINT(179 5))")).toEqual(["crossing"]);
    expect(await shapes("S_INTERSECTS(geometry, POINT(-175 5))")).toEqual(["crossing"]);
    // Between its edges the planar reading would have it; the shape does not go there.
    expect(await shapes("S_INTERSECTS(geometry, POINT(100 5))")).toEqual([]);
    expect(await shapes("S_WITHIN(geometry, BBOX(160, -1, -160, 11))")).toEqual(["crossing"]);
    expect(await shapes("S_WITHIN(geometry, BBOX(160, -1, 180, 11))")).toEqual([]);
    expect(await shapes("S_OVERLAPS(geometry, BBOX(175, 5, -175, 20))")).toEqual(["crossing"]);
  });

  it("keeps a proof without geometry unknown: neither a predicate nor its NOT selects it", async () => {
    for (const p of ["S_INTERSECTS(geometry, BBOX(-180, -90, 180, 90))", "S_WITHIN(geometry, POINT(0 0))"]) {
      const yes = await shapes(p);
      const no = await shapes(`NOT ${p}`);
      expect([...yes, ...no].sort()).toEqual(ALL);
      expect(yes).not.toContain("nowhere");
    }
  });

  it("says the same in CQL2 JSON", async () => {
    const json = {
      op: "s_intersects",
      args: [
        { property: "geometry" },
        {
          type: "Polygon",
          coordinates: [
            [
              [6, 0],
              [10, 0],
              [10, 4],
              [6, 4],
              [6, 0],
            ],
          ],
        },
      ],
    };
    expect(await shapes(JSON.stringify(json), "cql2-json")).toEqual([]);
    const within = { op: "s_within", args: [{ property: "geometry" }, { bbox: [160, -1, -160, 11] }] };
    expect(await shapes(JSON.stringify(within), "cql2-json")).toEqual(["crossing"]);
  });
});

describe("spatial functions on location-proof-shapes: the GiST index reads tight boxes", () => {
  // Every predicate but S_DISJOINT reads the shapes through the GiST indexes on `shape` with the literal's box and, for
  // the shapes across the antimeridian (their partial index), the box of the literal moved by 360°: never the box of
  // the literal together with its moved copy alone, which spans over 360° and reads much of the table. The exact test is
  // then run on the rows the boxes leave (it is not the bitmap's recheck condition). Sequential scans are turned off
  // so that a table this small is read through an index at all.
  it.each(["S_INTERSECTS", "S_EQUALS", "S_TOUCHES", "S_WITHIN", "S_OVERLAPS", "S_CROSSES", "S_CONTAINS"])(
    "%s",
    async (op) => {
      const where = dialect.sqlToQuery(
        cql2Filter(`${op}(geometry, POLYGON((-5 -5, 15 -5, 15 35, -5 35, -5 -5)))`, "bounds"),
      );
      const plan = await app.db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const { rows } = (await tx.execute(
          sql.raw(
            `explain (format json) select uid from location_proofs where ${where.sql.replace(/\$(\d+)/g, (_, i) => `'${where.params[Number(i) - 1]}'`)}`,
          ),
        )) as unknown as { rows: { "QUERY PLAN": unknown }[] };
        return JSON.stringify(rows[0]!["QUERY PLAN"]);
      });
      const indexes = [...plan.matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1]);
      expect(indexes.sort()).toEqual(["location_proofs_crossing_shape_gist", "location_proofs_shape_gist"]);
      const conditions = [...plan.matchAll(/"Index Cond":"([^"]+)"/g)].map((m) => m[1]!);
      // Each index condition holds a box as wide as the literal (20°), whatever else it is ANDed with.
      const boxes = conditions.map((c) => [...c.matchAll(/'([0-9A-F]+)'::geometry/g)].map((m) => m[1]!));
      expect(boxes.every((b) => b.length > 0)).toBe(true);
      const { rows } = (await app.db.execute(
        sql`select max(w)::float8 as width from (select min(ST_XMax(g::geometry) - ST_XMin(g::geometry)) as w
          from jsonb_array_elements(${JSON.stringify(boxes)}::jsonb) with ordinality c(boxes, n),
            jsonb_array_elements_text(c.boxes) g group by n) tight`,
      )) as unknown as { rows: { width: number }[] };
      expect(rows[0]!.width, JSON.stringify(conditions)).toBe(20);
      const recheck = [...plan.matchAll(/"Recheck Cond":"([^"]+)"/g)].map((m) => m[1]!);
      expect(recheck.join(" ")).not.toMatch(/st_/);
    },
  );
});

describe("spatial functions on location-proofs (points)", () => {
  it("answers every predicate on the representative point", async () => {
    expect(await points("S_EQUALS(geometry, POINT(50 50))")).toEqual(["point"]);
    expect(await points("S_WITHIN(geometry, POLYGON((49 49, 51 49, 51 51, 49 51, 49 49)))")).toEqual([
      "point",
    ]);
    expect(await points("S_TOUCHES(geometry, POLYGON((50 50, 51 50, 51 51, 50 51, 50 50)))")).toEqual([
      "point",
    ]);
    expect(await points("S_INTERSECTS(geometry, LINESTRING(49 49, 51 51))")).toEqual(["point"]);
    expect(await points("S_CROSSES(geometry, LINESTRING(49 49, 51 51))")).toEqual([]);
    expect(
      await names(
        POINT_ITEMS,
        "S_INTERSECTS(geometry, POLYGON((40 40, 55 40, 55 55, 40 55, 40 40), (49 49, 51 49, 51 51, 49 51, 49 49)))",
      ),
    ).toEqual([]);
    // A point on a hole's boundary is on the polygon's boundary: it intersects.
    expect(
      await names(
        POINT_ITEMS,
        "S_INTERSECTS(geometry, POLYGON((40 40, 55 40, 55 55, 40 55, 40 40), (50 49, 52 49, 52 51, 50 51, 50 49)))",
      ),
    ).toEqual(["point"]);
    const disjoint = await points("S_DISJOINT(geometry, LINESTRING(49 49, 51 51))");
    expect(disjoint).not.toContain("point");
    expect(disjoint).not.toContain("nowhere");
  });
});

describe("invalid geometry literals are a 400 with where", () => {
  it.each([
    ["cql2-text", "S_WITHIN(geometry, POLYGON((0 0, 1 0, 1 1, 0 1)))", /closed/, "character 20"],
    [
      "cql2-json",
      '{"op":"s_touches","args":[{"property":"geometry"},{"type":"Point","coordinates":[0,"NaN"]}]}',
      /./,
      "/args/1",
    ],
  ])("%s %s", async (lang, filter, reason, where) => {
    const res = await app.get(`${SHAPES_ITEMS}?filter-lang=${lang}&filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe("filter");
    expect(res.body.description).toMatch(reason);
    expect(String(res.body.details.where).startsWith(where), res.body.details.where).toBe(true);
  });
});
