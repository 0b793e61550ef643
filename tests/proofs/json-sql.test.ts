import { asc, sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { locationProofs as p } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { toFeature } from "../../lib/ogc/feature.js";
import { distanceJson, pointFeatureJson, recordJson, shapeFeatureJson } from "../../lib/proofs/json-sql.js";
import { distanceSql, EARTH_RADIUS_M, MAX_RADIUS_M } from "../../lib/proofs/near.js";
import { serializeProof } from "../../lib/proofs/properties.js";
import { selectProofJson, selectProofs } from "../../lib/proofs/rows.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// The JSON PostgreSQL writes for a page (lib/proofs/json-sql.ts) must be, value for value, what serializeProof and
// toFeature write from the same rows: on the sample data, and on rows made to reach the edges of every type —
// strings that need escaping, years past 9999, numbers whose shortest text has an exponent, the antimeridian,
// missing coordinates, times and bounds. In a proximity query the distance is the record's last member, and the
// feature's properties' last, byte for byte as JSON.stringify writes it.
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

/** The JSON of the catalogue's serialisers, as a client reads it. */
const viaJs = (value: unknown) => JSON.parse(JSON.stringify(value));

async function compareAll() {
  const q = { orderBy: [asc(p.uid), asc(p.chainId)], limit: 100_000 };
  const { rows } = await selectProofs(app.db, q);
  const { rows: records } = await selectProofJson(app.db, q, recordJson(), [p.uid, p.chainId]);
  const { rows: features } = await selectProofJson(app.db, q, pointFeatureJson(), []);
  const { rows: shapes } = await selectProofJson(app.db, q, shapeFeatureJson(), []);
  expect(records.map((r) => r.uid)).toEqual(rows.map((r) => r.uid));
  rows.forEach((row, i) => {
    expect(JSON.parse(records[i]!.json), row.uid).toEqual(viaJs(serializeProof(row)));
    expect(JSON.parse(features[i]!.json), row.uid).toEqual(viaJs(toFeature(row, { geometry: "point" })));
    expect(JSON.parse(shapes[i]!.json), row.uid).toEqual(viaJs(toFeature(row, { geometry: "shape" })));
  });
  // With a proximity query's distance (read beside the JSON as a number too), from a point among the rows'.
  const distance = distanceSql({ lon: 12.5, lat: -33.25, radius: MAX_RADIUS_M });
  const near = { ...q, distance };
  const { rows: nearRecords } = await selectProofJson(app.db, near, recordJson(distance), []);
  const { rows: nearFeatures } = await selectProofJson(app.db, near, pointFeatureJson(distance), []);
  const { rows: nearShapes } = await selectProofJson(app.db, near, shapeFeatureJson(distance), []);
  rows.forEach((row, i) => {
    // (A row without coordinates has no distance: a proximity query never matches it.)
    const d = nearRecords[i]!.distance ?? null;
    const member = `,"distance":${JSON.stringify(d)}}`;
    expect(nearRecords[i]!.json.endsWith(member), row.uid).toBe(true);
    expect(JSON.parse(nearRecords[i]!.json), row.uid).toEqual({ ...viaJs(serializeProof(row)), distance: d });
    for (const [features, geometry] of [
      [nearFeatures, "point"],
      [nearShapes, "shape"],
    ] as const) {
      expect(features[i]!.json.endsWith(`${member}}`), row.uid).toBe(true);
      const feature = viaJs(toFeature(row, { geometry }));
      expect(JSON.parse(features[i]!.json), row.uid).toEqual({
        ...feature,
        properties: { ...feature.properties, distance: d },
      });
    }
  });
  expect(nearRecords.filter((r) => r.distance !== undefined).length).toBeGreaterThan(0);
  return rows.length;
}

const template = sampleProofs({ count: 1, seed: 99 })[0]!;
let serial = 0;
const uid = () => `0x${"f".repeat(32)}${(++serial).toString(16).padStart(32, "0")}`;

describe("JSON written by PostgreSQL = the catalogue's serialisers", () => {
  it("on the sample data", async () => {
    await insertProofs(app.db, sampleProofs({ count: 300, seed: 5 }));
    expect(await compareAll()).toBe(300);
  });

  it("on rows at the edges of every type", async () => {
    const text = fc.string({ unit: "binary", maxLength: 40 }).map((s) => s.replaceAll("\u0000", "\uFFFD"));
    // Doubles as coordinates come (PostgreSQL refuses subnormal float8 input, which no coordinate is).
    const normal = (max: number) =>
      fc.double({ min: -max, max, noNaN: true }).filter((x) => x === 0 || Math.abs(x) > 1e-300);
    const coordinate = fc.oneof(
      normal(180),
      fc.constantFrom(1e-7, -2.5e-5, 0.0001, 123.456789012345, -180, 180, 0, -0),
    );
    // Stored instants: on-chain seconds after 1970 (lib/sync/decode-attestation.ts), up to 9999 (isoSql).
    const instant = fc.oneof(
      fc.date({ min: new Date(1000), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true }),
      fc.constantFrom(
        new Date("9999-12-31T23:59:59.999Z"),
        new Date(1000),
        new Date("2026-11-24T12:00:00.123Z"),
      ),
    );
    const row = fc.record({
      memo: fc.option(text),
      location: fc.option(text),
      decodeError: fc.option(text),
      srs: fc.option(text),
      recipeType: fc.option(fc.array(text, { maxLength: 3 })),
      mediaData: fc.option(fc.array(text, { maxLength: 3 })),
      eventTimestamp: fc.option(instant),
      expirationTime: fc.option(instant),
      revocationTime: fc.option(instant),
      eventTimestampRaw: fc.option(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map(String)),
      point: fc.option(fc.tuple(coordinate, normal(90))),
      shape: fc.constantFrom("point", "crossing", "polygon"),
      blockNumber: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    });
    const rows = fc.sample(row, { numRuns: 300, seed: 7 }).map((r) => {
      const [x, y] = r.point ?? [0, 0];
      const located = !r.point
        ? {
            geometry: null,
            longitude: null,
            latitude: null,
            minLon: null,
            minLat: null,
            maxLon: null,
            maxLat: null,
          }
        : r.shape === "crossing"
          ? {
              geometry: {
                type: "LineString",
                coordinates: [
                  [170, y],
                  [-170, y],
                ],
              },
              ...{ longitude: 180, latitude: y, minLon: 170, minLat: y, maxLon: -170, maxLat: y },
            }
          : r.shape === "polygon"
            ? {
                geometry: {
                  type: "Polygon",
                  coordinates: [
                    [
                      [x, y],
                      [x, y],
                      [x, y],
                      [x, y],
                    ],
                  ],
                },
                ...{ longitude: x, latitude: y, minLon: x, minLat: y, maxLon: x, maxLat: y },
              }
            : {
                geometry: { type: "Point", coordinates: [x, y] },
                ...{ longitude: x, latitude: y, minLon: x, minLat: y, maxLon: x, maxLat: y },
              };
      return {
        ...template,
        uid: uid(),
        memo: r.memo,
        location: r.location,
        decodeError: r.decodeError,
        srs: r.srs,
        recipeType: r.recipeType,
        mediaData: r.mediaData,
        eventTimestamp: r.eventTimestamp,
        expirationTime: r.expirationTime,
        revocationTime: r.revocationTime,
        eventTimestampRaw: r.eventTimestampRaw,
        blockNumber: r.blockNumber,
        ...located,
      };
    });
    await insertProofs(app.db, rows);
    expect(await compareAll()).toBe(300 + rows.length);
  });
});

describe("a distance in the JSON", () => {
  it("is written as JSON.stringify writes it, from 0 to half the circumference", async () => {
    // float8's own text writes 1e-6 <= d < 1e-4 with an exponent (3.5e-05), and smaller ones with a two-digit
    // exponent (1.5e-07): those are the values to reach, with the boundaries either side.
    const below = (x: number) => x * (1 - Number.EPSILON);
    const edges = [
      0,
      5e-300,
      1.2345678901234566e-9,
      1e-7,
      1.5e-7,
      9.99e-7,
      below(1e-6),
      1e-6,
      1.5e-6,
      1e-5,
      3.5e-5,
      9.9999e-5,
      below(1e-4),
      1e-4,
      0.00012345,
      0.1,
      1,
      123.456,
      1e7,
      20015114.35,
      MAX_RADIUS_M,
      Math.PI * EARTH_RADIUS_M,
    ];
    const spread = fc.sample(
      fc.oneof(
        fc
          .tuple(fc.double({ min: 1, max: 10, noNaN: true }), fc.integer({ min: -12, max: 7 }))
          .map(([m, e]) => m * 10 ** e),
        fc.double({ min: 0, max: MAX_RADIUS_M, noNaN: true }),
      ),
      { numRuns: 3000, seed: 11 },
    );
    const values = [...edges, ...spread];
    const written = await queryRows<{ j: string }>(
      app.db,
      sql`select ${distanceJson(sql`v`)}::text as j from (select (value #>> '{}')::float8 as v, ordinality from json_array_elements(${JSON.stringify(values)}::json) with ordinality) t order by ordinality`,
    );
    expect(written.map((r) => r.j)).toEqual(values.map((v) => JSON.stringify(v)));
    // The test reaches both forms JavaScript writes a small distance in.
    expect(written.some((r) => /^0\.00000?[1-9]/.test(r.j))).toBe(true);
    expect(written.some((r) => /e-[1-9]$/.test(r.j))).toBe(true);
  });
});
