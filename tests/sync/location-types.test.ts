import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeLocation } from "../../lib/location/decode.js";
import { LOCATION_TYPES, normaliseLocationType } from "../../lib/location/vocabulary.js";
import { FIELD_NAMES } from "../../lib/sync/decode-attestation.js";
import { ROOT } from "../helpers/app.js";

const d = (
  locationType: string,
  location: string,
  srs: string | null = "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
) => decodeLocation({ locationType, location, srs });

describe("the protocol's location types and the spellings writers use", () => {
  it("each spelling seen in public code normalises to the protocol's type", () => {
    const table: [string, string][] = [
      ["coordinate-decimal+lon-lat", "coordinate-decimal+lon-lat"],
      ["coordinate-decimal.lon-lat", "coordinate-decimal+lon-lat"],
      ["DecimalDegrees<string>", "coordinate-decimal+lon-lat"],
      ["decimalDegrees", "coordinate-decimal+lon-lat"],
      ["coordinate-decimal+lat-lon", "coordinate-decimal+lat-lon"],
      ["geojson-point", "geojson-point"],
      ["GeoJSON", "geojson"],
      ["geojson-line", "geojson-line"],
      ["geojson-polygon", "geojson-polygon"],
      ["geojson-multipolygon", "geojson"],
      ["wkt", "wkt"],
      ["wkt-point", "wkt"],
      ["WKT", "wkt"],
      ["h3", "h3"],
      ["h3-index", "h3"],
      ["geohash", "geohash"],
      ["address", "address"],
      ["scaledCoordinates", "scaledCoordinates"],
      // The protocol's registry form, namespace and major version: lp.<type>.v<major>.
      ["lp.geojson-point.v1", "geojson-point"],
      [" H3 ", "h3"],
    ];
    for (const [raw, type] of table) expect(normaliseLocationType(raw).type, raw).toBe(type);
  });

  it("what would need a guess is not normalised, and says why", () => {
    expect(normaliseLocationType("coordinate-decimal")).toMatchObject({
      type: null,
      problem: expect.stringMatching(/axis order.*not guessed/),
    });
    expect(normaliseLocationType("mystery")).toMatchObject({
      type: null,
      problem: expect.stringMatching(/not one/),
    });
    expect(normaliseLocationType("")).toMatchObject({ type: null, problem: "no location type was given" });
  });

  it("every type of the vocabulary decodes a sample to a point, but address, which has no coordinates", () => {
    const samples: Record<string, string> = {
      "coordinate-decimal+lon-lat": "-103.771556, 44.967243",
      "coordinate-decimal+lat-lon": "44.967243, -103.771556",
      "geojson-point": '{"type":"Point","coordinates":[-103.771556,44.967243]}',
      "geojson-line": '{"type":"LineString","coordinates":[[-103.771556,44.967243],[-103.761556,44.977243]]}',
      "geojson-polygon":
        '{"type":"Polygon","coordinates":[[[-103.77,44.96],[-103.77,44.97],[-103.76,44.97],[-103.76,44.96],[-103.77,44.96]]]}',
      geojson: '{"type":"MultiPoint","coordinates":[[-103.77,44.96],[-103.76,44.97]]}',
      h3: "8928308280fffff",
      geohash: "9xyd",
      wkt: "POINT(-103.771556 44.967243)",
      scaledCoordinates: '{"x":-1037715560,"y":449672430,"scale":10000000}',
    };
    for (const type of LOCATION_TYPES) {
      if (type === "address") {
        expect(d(type, "221B Baker Street, London")).toMatchObject({ type, geometry: null });
        expect(d(type, "221B Baker Street, London").problem).toBeUndefined();
        continue;
      }
      const r = d(type, samples[type]!);
      expect(r.type, type).toBe(type);
      expect(r.problem, type).toBeUndefined();
      expect(r.longitude, type).not.toBeNull();
    }
    expect(d("scaledCoordinates", samples.scaledCoordinates!)).toMatchObject({
      longitude: -103.771556,
      latitude: 44.967243,
    });
  });

  it("GeoJSON is typed by the geometry it holds; a declaration it contradicts is warned about, not hidden", () => {
    const polygon = '{"type":"Polygon","coordinates":[[[1,1],[2,1],[2,2],[1,2],[1,1]]]}';
    expect(d("GeoJSON", polygon)).toMatchObject({ type: "geojson-polygon" });
    expect(d("GeoJSON", polygon).problem).toBeUndefined();
    expect(d("geojson-point", polygon)).toMatchObject({
      type: "geojson-polygon",
      problem: "declared geojson-point but the location is a GeoJSON Polygon",
    });
    expect(d("geojson-point", polygon).longitude).toBe(1.5);
  });
});

describe("no guessed points", () => {
  it('a longitude written twice ("<lon>, <lon>") gets no coordinates and a warning', () => {
    const r = d("DecimalDegrees<string>", "-122.4194, -122.4194");
    expect(r).toMatchObject({ type: "coordinate-decimal+lon-lat", longitude: null, latitude: null });
    expect(r.problem).toMatch(/both values are -122.4194.*not guessed/);
    // 0, 0 is a place (Null Island), not a repeated value.
    expect(d("DecimalDegrees<string>", "0, 0")).toMatchObject({ longitude: 0, latitude: 0 });
  });

  it("a pair in the other axis order than declared is not swapped", () => {
    const r = d("coordinate-decimal+lon-lat", "37.7749, -122.4194");
    expect(r).toMatchObject({
      longitude: null,
      problem: expect.stringMatching(/other axis order.*not guessed/),
    });
  });

  it("coordinates without a declared order are not read", () => {
    expect(d("coordinate-decimal", "1, 2")).toMatchObject({
      type: null,
      longitude: null,
      problem: expect.stringMatching(/axis order/),
    });
  });

  it("a scaledCoordinates object that is not integers with a positive scale is not read", () => {
    for (const bad of ['{"x":1.5,"y":2,"scale":10}', '{"x":1,"y":2,"scale":0}', "[1,2]", "{"]) {
      expect(d("scaledCoordinates", bad), bad).toMatchObject({
        longitude: null,
        problem: expect.any(String),
      });
    }
  });
});

describe("the normalisation table of docs/location-protocol.md", () => {
  it("says what the code does, row by row", () => {
    const doc = readFileSync(join(ROOT, "docs/location-protocol.md"), "utf8");
    const table = doc.slice(doc.indexOf("| attested `location_type` |")).split("\n\n")[0]!;
    const rows = table
      .split("\n")
      .slice(2)
      .map((l) => l.split("|").map((c) => c.trim()));
    expect(rows.length).toBeGreaterThan(8);
    const GEOJSON = ["geojson", "geojson-point", "geojson-line", "geojson-polygon"];
    for (const [, spellings, normalised] of rows) {
      const expected = /^`([^`]+)`/.exec(normalised!)?.[1];
      for (const [, spelling] of spellings!.matchAll(/`([^`]+)`/g)) {
        const got = normaliseLocationType(spelling).type;
        if (normalised!.startsWith("by the geometry")) expect(GEOJSON, spelling).toContain(got);
        else if (normalised!.startsWith("null")) expect(got, spelling).toBeNull();
        else expect(got, spelling).toBe(expected);
      }
    }
  });
});

describe("the decoding table of docs/location-protocol.md", () => {
  it("names exactly the schema fields the decoder takes by name", () => {
    const doc = readFileSync(join(ROOT, "docs/location-protocol.md"), "utf8");
    const table = doc.slice(doc.indexOf("| record field |")).split("\n\n")[0]!;
    const named = new Set(
      table
        .split("\n")
        .slice(2)
        .flatMap((l) => [...(l.split("|")[2] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!)),
    );
    expect(named).toEqual(new Set(Object.values(FIELD_NAMES).flat()));
  });
});
