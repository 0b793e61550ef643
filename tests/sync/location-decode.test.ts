import { describe, expect, it } from "vitest";
import { decodeLocation } from "../../lib/location/decode.js";
import { geohashBounds } from "../../lib/location/geohash.js";
import { parseWkt } from "../../lib/location/wkt.js";

const d = (locationType: string, location: string, srs: string | null = "EPSG:4326") =>
  decodeLocation({ locationType, location, srs });

/** What a decoded location without usable coordinates holds. */
const NO_LOCATION = { longitude: null, latitude: null, geometry: null, bbox: null };

describe("coordinate pairs", () => {
  it.each([
    "-122.4194, 37.7749",
    "-122.4194,37.7749",
    "[-122.4194, 37.7749]",
    "-122.4194 37.7749",
    "(-122.4194, 37.7749)",
  ])("DecimalDegrees<string> is longitude first, written %s", (s) => {
    const r = d("DecimalDegrees<string>", s);
    expect(r, s).toMatchObject({ longitude: -122.4194, latitude: 37.7749 });
    expect(r.geometry).toEqual({ type: "Point", coordinates: [-122.4194, 37.7749] });
    expect(r.bbox).toEqual([-122.4194, 37.7749, -122.4194, 37.7749]);
  });
  it("keeps a third value (height) in the geometry only", () => {
    const r = d("DecimalDegrees<string>", "[-122.4194, 37.7749, 12.5]");
    expect(r.geometry).toEqual({ type: "Point", coordinates: [-122.4194, 37.7749, 12.5] });
    expect([r.longitude, r.latitude]).toEqual([-122.4194, 37.7749]);
  });
  it("coordinate-decimal+lon-lat, string and JSON array", () => {
    expect(d("coordinate-decimal+lon-lat", "-103.771556, 44.967243")).toMatchObject({
      longitude: -103.771556,
      latitude: 44.967243,
    });
    expect(d("coordinate-decimal+lon-lat", "[-103.771556, 44.967243]")).toMatchObject({
      longitude: -103.771556,
      latitude: 44.967243,
    });
  });
  it("coordinate-decimal+lat-lon is latitude first", () => {
    const r = d("coordinate-decimal+lat-lon", "44.967243, -103.771556");
    expect(r).toMatchObject({ longitude: -103.771556, latitude: 44.967243 });
    expect(r.geometry).toEqual({ type: "Point", coordinates: [-103.771556, 44.967243] });
  });
  it("never guesses the order: lat-first values under a lon-lat type stay as written", () => {
    // "37.7749, -122.4194" (lat first) under a lon-lat type: latitude -122 is out of range → invalid, not swapped.
    expect(d("DecimalDegrees<string>", "37.7749, -122.4194")).toMatchObject({
      longitude: null,
      latitude: null,
    });
    // Both orders in range: read as declared.
    expect(d("DecimalDegrees<string>", "45, 10")).toMatchObject({ longitude: 45, latitude: 10 });
    // A latitude out of range after reading in the declared order is invalid, not swapped.
    expect(d("coordinate-decimal+lon-lat", "10, 120")).toMatchObject(NO_LOCATION);
    expect(d("coordinate-decimal+lat-lon", "120, 10")).toMatchObject({ longitude: null, latitude: null });
    expect(d("coordinate-decimal+lat-lon", "10, 120")).toMatchObject({ longitude: 120, latitude: 10 });
  });
  it("zero is a valid coordinate", () => {
    expect(d("DecimalDegrees<string>", "0, 0")).toMatchObject({
      longitude: 0,
      latitude: 0,
      bbox: [0, 0, 0, 0],
    });
    expect(d("coordinate-decimal+lat-lon", "0,0")).toMatchObject({ longitude: 0, latitude: 0 });
  });
  it("boundaries are inclusive; beyond them is invalid", () => {
    expect(d("DecimalDegrees<string>", "180, 90")).toMatchObject({ longitude: 180, latitude: 90 });
    expect(d("DecimalDegrees<string>", "-180, -90")).toMatchObject({ longitude: -180, latitude: -90 });
    expect(d("DecimalDegrees<string>", "180.0001, 0").longitude).toBeNull();
    expect(d("DecimalDegrees<string>", "0, -90.5").latitude).toBeNull();
  });
  it("garbage is no coordinates, never an exception", () => {
    for (const s of [
      "",
      "abc",
      "1",
      "1,2,3,4",
      "1;2",
      "NaN, 1",
      "Infinity, 0",
      "0x12, 5",
      "1e999, 0",
      "{}",
    ]) {
      expect(d("DecimalDegrees<string>", s), s).toMatchObject(NO_LOCATION);
    }
  });
});

describe("GeoJSON", () => {
  it("Point as a string", () => {
    const r = d("geojson-point", '{"type":"Point","coordinates":[-0.1276,51.5072]}');
    expect(r).toMatchObject({ longitude: -0.1276, latitude: 51.5072, geometry: { type: "Point" } });
  });
  it("a Feature wrapping a geometry, and a bare position", () => {
    expect(
      d("geojson", '{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,0]}}'),
    ).toMatchObject({ longitude: 0, latitude: 0 });
    expect(d("geojson-point", "[13.405, 52.52]")).toMatchObject({ longitude: 13.405, latitude: 52.52 });
  });
  it("LineString: bbox of all vertices, representative point on the line (vertex nearest the bbox centre)", () => {
    const r = d(
      "geojson-line",
      JSON.stringify({
        type: "LineString",
        coordinates: [
          [0, 0],
          [1, 1],
          [10, 0],
        ],
      }),
    );
    expect(r.bbox).toEqual([0, 0, 10, 1]);
    expect([r.longitude, r.latitude]).toEqual([1, 1]);
  });
  it("Polygon: bbox centre when inside", () => {
    const ring = [
      [10, 10],
      [12, 10],
      [12, 12],
      [10, 12],
      [10, 10],
    ];
    const r = d("geojson-polygon", JSON.stringify({ type: "Polygon", coordinates: [ring] }));
    expect(r).toMatchObject({ longitude: 11, latitude: 11, bbox: [10, 10, 12, 12] });
  });
  it("Polygon whose bbox centre lies outside (a U shape) gives a vertex, not the centre", () => {
    const u = [
      [0, 0],
      [3, 0],
      [3, 3],
      [2, 3],
      [2, 1],
      [1, 1],
      [1, 3],
      [0, 3],
      [0, 0],
    ];
    const r = d("geojson-polygon", JSON.stringify({ type: "Polygon", coordinates: [u] }));
    expect([r.longitude, r.latitude]).not.toEqual([1.5, 1.5]);
    expect(u.some(([x, y]) => x === r.longitude && y === r.latitude)).toBe(true);
  });
  it("Polygon with a hole around the centre", () => {
    const outer = [
      [0, 0],
      [4, 0],
      [4, 4],
      [0, 4],
      [0, 0],
    ];
    const hole = [
      [1, 1],
      [3, 1],
      [3, 3],
      [1, 3],
      [1, 1],
    ];
    const r = d("geojson", JSON.stringify({ type: "Polygon", coordinates: [outer, hole] }));
    expect([r.longitude, r.latitude]).not.toEqual([2, 2]);
  });
  it("Multi* and GeometryCollection", () => {
    expect(
      d(
        "geojson",
        JSON.stringify({
          type: "MultiPoint",
          coordinates: [
            [1, 1],
            [3, 3],
          ],
        }),
      ).bbox,
    ).toEqual([1, 1, 3, 3]);
    expect(
      d(
        "geojson",
        JSON.stringify({
          type: "MultiLineString",
          coordinates: [
            [
              [0, 0],
              [1, 0],
            ],
            [
              [5, 5],
              [6, 6],
            ],
          ],
        }),
      ).bbox,
    ).toEqual([0, 0, 6, 6]);
    const mp = {
      type: "MultiPolygon",
      coordinates: [
        [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 0],
          ],
        ],
        [
          [
            [10, 10],
            [11, 10],
            [11, 11],
            [10, 10],
          ],
        ],
      ],
    };
    expect(d("geojson", JSON.stringify(mp)).bbox).toEqual([0, 0, 11, 11]);
    const gc = {
      type: "GeometryCollection",
      geometries: [
        { type: "Point", coordinates: [5, 5] },
        {
          type: "LineString",
          coordinates: [
            [0, 0],
            [1, 1],
          ],
        },
      ],
    };
    expect(d("geojson", JSON.stringify(gc)).bbox).toEqual([0, 0, 5, 5]);
  });
  it("a FeatureCollection becomes a GeometryCollection", () => {
    const fc = {
      type: "FeatureCollection",
      features: [
        { type: "Feature", geometry: { type: "Point", coordinates: [1, 2] } },
        { type: "Feature", geometry: { type: "Point", coordinates: [3, 4] } },
      ],
    };
    expect(d("geojson", JSON.stringify(fc)).geometry?.type).toBe("GeometryCollection");
  });
  it("invalid GeoJSON and out-of-range vertices are no coordinates", () => {
    for (const s of [
      "{",
      "null",
      '"x"',
      '{"type":"Point"}',
      '{"type":"Point","coordinates":[200,0]}',
      '{"type":"LineString","coordinates":[[0,0]]}',
      '{"type":"Polygon","coordinates":[[[0,0],[1,1]]]}',
      '{"type":"Circle","coordinates":[0,0]}',
      '{"type":"Point","coordinates":["1","2"]}',
    ]) {
      expect(d("geojson", s), s).toMatchObject({ geometry: null, longitude: null, latitude: null });
    }
  });
  it("strips members other than type and coordinates", () => {
    const r = d("geojson", '{"type":"Point","coordinates":[1,2],"crs":{"x":1},"bbox":[9,9,9,9]}');
    expect(r.geometry).toEqual({ type: "Point", coordinates: [1, 2] });
  });
});

describe("WKT", () => {
  it("POINT, x is longitude", () => {
    expect(d("wkt", "POINT(-122.4 37.7)")).toMatchObject({ longitude: -122.4, latitude: 37.7 });
    expect(d("WKT", "point ( -122.4   37.7 )")).toMatchObject({ longitude: -122.4, latitude: 37.7 });
    expect(d("wkt", "POINT Z (1 2 3)").geometry).toEqual({ type: "Point", coordinates: [1, 2, 3] });
    expect(d("wkt", "POINT M (1 2 3)").geometry).toEqual({ type: "Point", coordinates: [1, 2] });
    expect(d("wkt", "POINT ZM (1 2 3 4)").geometry).toEqual({ type: "Point", coordinates: [1, 2, 3] });
    // Untagged 4 numbers are x y z m: the height stays, only the measure goes.
    expect(d("wkt", "POINT (1 2 3 4)").geometry).toEqual({ type: "Point", coordinates: [1, 2, 3] });
    expect(d("wkt", "POINT (1 2 3)").geometry).toEqual({ type: "Point", coordinates: [1, 2, 3] });
    expect(d("wkt", "SRID=4326;POINT(0 0)")).toMatchObject({ longitude: 0, latitude: 0 });
  });
  it("POLYGON, LINESTRING, MULTI*, GEOMETRYCOLLECTION", () => {
    expect(d("wkt", "POLYGON((10 10, 12 10, 12 12, 10 12, 10 10))")).toMatchObject({
      longitude: 11,
      latitude: 11,
      bbox: [10, 10, 12, 12],
    });
    expect(d("wkt", "LINESTRING(0 0, 1 1, 2 2)").geometry).toEqual({
      type: "LineString",
      coordinates: [
        [0, 0],
        [1, 1],
        [2, 2],
      ],
    });
    expect(parseWkt("MULTIPOINT((1 2),(3 4))")?.geometry).toEqual({
      type: "MultiPoint",
      coordinates: [
        [1, 2],
        [3, 4],
      ],
    });
    expect(parseWkt("MULTIPOINT(1 2, 3 4)")?.geometry).toEqual({
      type: "MultiPoint",
      coordinates: [
        [1, 2],
        [3, 4],
      ],
    });
    expect(parseWkt("MULTILINESTRING((0 0, 1 1),(2 2, 3 3))")?.geometry.type).toBe("MultiLineString");
    expect(parseWkt("MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)),((5 5, 6 5, 6 6, 5 5)))")?.geometry.type).toBe(
      "MultiPolygon",
    );
    expect(parseWkt("GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, 1 1))")?.geometry.type).toBe(
      "GeometryCollection",
    );
  });
  it("malformed, EMPTY, other SRIDs and out-of-range are no coordinates", () => {
    for (const s of [
      "POINT(1)",
      "POINT 1 2",
      "POINT(1 2",
      "POINT EMPTY",
      "CIRCLE(1 2)",
      "POINT(1 2) trailing",
      "SRID=3857;POINT(1000 2000)",
      "POINT(181 0)",
    ]) {
      expect(d("wkt", s), s).toMatchObject({ geometry: null, longitude: null });
    }
  });
});

describe("geohash", () => {
  it("centre is the point, cell is the bbox", () => {
    const r = d("geohash", "9q8yyk8yt");
    expect(r.longitude).toBeCloseTo(-122.4194, 3);
    expect(r.latitude).toBeCloseTo(37.7749, 3);
    const [x0, y0, x1, y1] = r.bbox!;
    expect(x0 < r.longitude! && r.longitude! < x1 && y0 < r.latitude! && r.latitude! < y1).toBe(true);
    expect(r.geometry?.type).toBe("Polygon");
  });
  it("known cells", () => {
    expect(geohashBounds("s")).toEqual([0, 0, 45, 45]);
    expect(geohashBounds("7zzzzzzzzzzz")![2]).toBeCloseTo(0, 6);
    expect(geohashBounds("ailo")).toBeUndefined();
  });
});

/** Great-circle distance in km (haversine, mean Earth radius), computed here, independently of h3-js. */
function km([lon1, lat1]: number[], [lon2, lat2]: number[]): number {
  const r = Math.PI / 180;
  const a =
    Math.sin(((lat2! - lat1!) * r) / 2) ** 2 +
    Math.cos(lat1! * r) * Math.cos(lat2! * r) * Math.sin(((lon2! - lon1!) * r) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(a));
}

describe("h3", () => {
  const ring = (r: ReturnType<typeof d>) =>
    (r.geometry as { type: "Polygon"; coordinates: number[][][] }).coordinates[0]!;

  it("h3-js's published example cell: its centre is the point, its boundary the polygon", () => {
    // From the h3-js README: latLngToCell(37.3615593, -122.0553238, 7) is 87283472bffffff, whose centre is
    // [37.35171820183272, -122.05032565263946] (lat, lng) and whose boundary starts at [37.341099093235684,
    // -122.04156135164334]. GeoJSON order is longitude first.
    const r = d("h3", "87283472bffffff");
    expect(r.longitude).toBeCloseTo(-122.05032565263946, 10);
    expect(r.latitude).toBeCloseTo(37.35171820183272, 10);
    expect(r.geometry?.type).toBe("Polygon");
    const vertices = ring(r);
    expect(vertices).toHaveLength(7);
    expect(vertices[0]).toEqual(vertices.at(-1));
    expect(
      vertices.some(
        ([x, y]) => Math.abs(x! - -122.04156135164334) < 1e-9 && Math.abs(y! - 37.341099093235684) < 1e-9,
      ),
    ).toBe(true);
    const [w, s, e, n] = r.bbox!;
    for (const [x, y] of vertices) expect(x! >= w && x! <= e && y! >= s && y! <= n).toBe(true);
    expect(w < r.longitude! && r.longitude! < e && s < r.latitude! && r.latitude! < n).toBe(true);
  });

  it("a resolution-9 cell (H3's documentation example) has the published size: edges ~174 m, area ~0.105 km²", () => {
    // H3's resolution table: at resolution 9 the average hexagon edge is 0.174 km and its area 0.105 km².
    const r = d("h3", "8928308280fffff");
    const vertices = ring(r);
    expect(vertices).toHaveLength(7);
    for (let i = 1; i < vertices.length; i++) {
      const edge = km(vertices[i - 1]!, vertices[i]!);
      expect(edge).toBeGreaterThan(0.12);
      expect(edge).toBeLessThan(0.23);
    }
    // Every vertex lies at about the same distance from the centre (a regular hexagon on the sphere).
    const radii = vertices.map((v) => km(v, [r.longitude!, r.latitude!]));
    expect(Math.max(...radii) / Math.min(...radii)).toBeLessThan(1.25);
    // Planar area in km² at this latitude (small cell): shoelace over an equirectangular projection.
    const kx = 111.195 * Math.cos((r.latitude! * Math.PI) / 180);
    let twice = 0;
    for (let i = 1; i < vertices.length; i++) {
      const [x0, y0] = vertices[i - 1]!;
      const [x1, y1] = vertices[i]!;
      twice += x0! * kx * (y1! * 111.195) - x1! * kx * (y0! * 111.195);
    }
    // Counter-clockwise (RFC 7946 §3.1.6: exterior rings follow the right-hand rule).
    expect(twice).toBeGreaterThan(0);
    expect(twice / 2).toBeGreaterThan(0.07);
    expect(twice / 2).toBeLessThan(0.14);
    // The centre of 8928308280fffff is in San Francisco (Market Street area).
    expect(r.longitude).toBeCloseTo(-122.418, 2);
    expect(r.latitude).toBeCloseTo(37.777, 2);
  });

  it("accepts any case and a 0x prefix; refuses what is not a cell", () => {
    const plain = d("h3", "8928308280fffff");
    expect(d("H3", " 8928308280FFFFF ")).toEqual(plain);
    expect(d("h3", "0x8928308280fffff")).toEqual(plain);
    for (const bad of ["8928308280ffff", "8928308280fffffg", "ffffffffffffffff", "0", "9q8yyk8yt", "-1"]) {
      expect(d("h3", bad), bad).toMatchObject(NO_LOCATION);
    }
  });

  it("a cell across the antimeridian has west > east bounds (RFC 7946 §5.2) and its centre near ±180°", () => {
    // 837eb5fffffffff is the resolution-3 cell holding (0°, 180°); its vertices lie on both sides of ±180°.
    const r = d("h3", "837eb5fffffffff");
    const [w, s, e, n] = r.bbox!;
    expect(w).toBeGreaterThan(179);
    expect(e).toBeLessThan(-179);
    expect(s).toBeLessThan(0);
    expect(n).toBeGreaterThan(0);
    expect(Math.abs(r.longitude!)).toBeGreaterThan(179);
    expect(Math.abs(r.latitude!)).toBeLessThan(1);
    // Every vertex lies within the bounds taken across the antimeridian: east of w, or west of e.
    for (const [x, y] of ring(r)) expect((x! >= w || x! <= e) && y! >= s && y! <= n).toBe(true);
  });

  it("a cell around a pole is bounded by the pole and spans every longitude; a pentagon has five sides", () => {
    // 8001fffffffffff and 80f3fffffffffff are the resolution-0 cells holding the North and South Pole.
    expect(d("h3", "8001fffffffffff").bbox).toEqual([-180, expect.any(Number), 180, 90]);
    expect(d("h3", "80f3fffffffffff").bbox).toEqual([-180, -90, 180, expect.any(Number)]);
    // 8009fffffffffff is one of H3's twelve resolution-0 pentagons.
    const pentagon = d("h3", "8009fffffffffff");
    expect(ring(pentagon)).toHaveLength(6);
  });
});

describe("srs and unknown types", () => {
  it("accepts the lon/lat spellings seen and an empty srs", () => {
    for (const srs of ["EPSG:4326", "WGS84", "http://www.opengis.net/def/crs/OGC/1.3/CRS84", "", null]) {
      expect(d("DecimalDegrees<string>", "1, 2", srs).longitude, String(srs)).toBe(1);
    }
  });
  it("an srs we cannot interpret gives no coordinates", () => {
    expect(d("DecimalDegrees<string>", "1, 2", "EPSG:3857")).toMatchObject({
      longitude: null,
      geometry: null,
    });
  });
  it("address and unknown types carry no coordinates", () => {
    for (const [t, l] of [
      ["address", "221B Baker Street"],
      ["coordinate-decimal", "1, 2"],
      ["", "1, 2"],
      ["mystery", "POINT(1 2)"],
    ]) {
      expect(d(t!, l!), t).toMatchObject({ geometry: null, longitude: null, latitude: null, bbox: null });
    }
  });
});
