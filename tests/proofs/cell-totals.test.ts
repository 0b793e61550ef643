import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locationProofs, type NewLocationProofRow } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { locationColumns } from "../../lib/location/columns.js";
import { decodeLocation } from "../../lib/location/decode.js";
import { countFromCells } from "../../lib/proofs/cell-totals.js";
import { countProofs } from "../../lib/proofs/count.js";
import type { Bbox, ProofFilter } from "../../lib/proofs/filter.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// A bbox count from proof_cell_counts (interior 1° cells) plus the rows on the box's edges and the proofs spanning a
// grid line must equal a plain COUNT, for the bounds and the point target, on data that sits on grid lines, spans
// them, crosses the antimeridian, touches ±180/±90 — and stay so after revocations, moves and deletes (triggers).
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const CHAINS = [
  { chain: "base", chainId: 8453 },
  { chain: "celo", chainId: 42220 },
];
/** Longitudes and latitudes on a 0.5° lattice (grid lines hit often), the extremes, and arbitrary values. */
const lonArb = fc.oneof(
  fc.integer({ min: -360, max: 360 }).map((i) => i / 2),
  fc.constantFrom(-180, 180, 179.99, -179.99),
  fc.double({ min: -180, max: 180, noNaN: true }),
);
const latArb = fc.oneof(
  fc.integer({ min: -180, max: 180 }).map((i) => i / 2),
  fc.constantFrom(-90, 90),
  fc.double({ min: -90, max: 90, noNaN: true }),
);
const geometryArb = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.tuple(lonArb, latArb).map(([x, y]) => ({ type: "Point", coordinates: [x, y] })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        lonArb,
        latArb,
        fc.double({ min: 0.01, max: 3, noNaN: true }),
        fc.double({ min: 0.01, max: 3, noNaN: true }),
      )
      .map(([x, y, w, h]) => {
        const [x1, y1] = [Math.min(180, x + w), Math.min(90, y + h)];
        return {
          type: "LineString",
          coordinates: [
            [x, y],
            [x1, y1],
          ],
        };
      }),
  },
  // Across the antimeridian: stored west > east.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.double({ min: 175, max: 179.9, noNaN: true }), latArb).map(([x, y]) => ({
      type: "LineString",
      coordinates: [
        [x, y],
        [-179.5, y],
      ],
    })),
  },
);

function row(
  i: number,
  geometry: unknown,
  chain: (typeof CHAINS)[number],
  revoked: boolean,
): NewLocationProofRow {
  const [base] = sampleProofs({ count: 1, seed: i + 1 });
  const location = JSON.stringify(geometry);
  return {
    ...base!,
    uid: `0x${i.toString(16).padStart(64, "0")}`,
    ...chain,
    revoked,
    locationType: "geojson",
    location,
    srs: "EPSG:4326",
    ...locationColumns(decodeLocation({ locationType: "geojson", location, srs: "EPSG:4326" })),
  };
}

const boxArb: fc.Arbitrary<Bbox> = fc.tuple(lonArb, lonArb, latArb, latArb).map(([a, b, c, d]) => ({
  minLon: Math.min(a, b),
  maxLon: Math.max(a, b),
  minLat: Math.min(c, d),
  maxLat: Math.max(c, d),
}));

const countRows = (f: ProofFilter) => countProofs(app.db, f);

async function expectCellsExact(boxes: Bbox[], step: string) {
  let answered = 0;
  for (const bbox of boxes)
    for (const bboxOn of ["bounds", "point"] as const)
      for (const extra of [{}, { includeRevoked: true }, { chains: ["celo"] }] as ProofFilter[]) {
        const filter: ProofFilter = { bbox, bboxOn, ...extra };
        const fromCells = await countFromCells(app.db, filter, countRows);
        if (fromCells === undefined) continue;
        answered++;
        expect(fromCells, `${step}: ${JSON.stringify(filter)}`).toBe(await countProofs(app.db, filter));
      }
  return answered;
}

describe("proof_cell_counts", () => {
  it("answers a bbox count exactly, through writes of every kind", async () => {
    const geometries = fc.sample(geometryArb, { numRuns: 600, seed: 42 });
    const rows = geometries.map((g, i) => row(i, g, CHAINS[i % 2]!, i % 9 === 0));
    await insertProofs(app.db, rows);
    const boxes = [
      ...fc.sample(boxArb, { numRuns: 60, seed: 7 }),
      { minLon: -10, minLat: 35, maxLon: 30, maxLat: 60 },
      { minLon: -180, minLat: -90, maxLon: 180, maxLat: 0 },
      { minLon: 170, minLat: -30, maxLon: 180, maxLat: 30 },
      { minLon: -3.5, minLat: -3.5, maxLon: 3.5, maxLat: 3.5 },
    ];
    expect(await expectCellsExact(boxes, "insert")).toBeGreaterThan(100);

    await app.db
      .update(locationProofs)
      .set({ revoked: sql`not ${locationProofs.revoked}` })
      .where(sql`${locationProofs.logIndex} = 0 and right(${locationProofs.uid}, 1) in ('1', '5')`);
    // Moves between cells (and out of the grid cells into spanning), as a reorg re-indexing a proof would.
    await app.db
      .update(locationProofs)
      .set({ minLon: sql`${locationProofs.minLon} - 0.5`, longitude: sql`${locationProofs.longitude} - 0.5` })
      .where(
        sql`right(${locationProofs.uid}, 1) = '3' and ${locationProofs.minLon} >= -179 and ${locationProofs.minLon} <= ${locationProofs.maxLon}`,
      );
    await app.db.delete(locationProofs).where(sql`right(${locationProofs.uid}, 1) = '7'`);
    expect(await expectCellsExact(boxes, "after updates and deletes")).toBeGreaterThan(100);

    await app.db.execute(sql`truncate location_proofs`);
    await insertProofs(app.db, rows.slice(0, 100));
    await expectCellsExact(boxes.slice(-4), "after truncate");
  });

  it("leaves small boxes, boxes across the antimeridian and other filters to the rows", async () => {
    const none: ProofFilter[] = [
      { bbox: { minLon: 13.3, minLat: 52.4, maxLon: 13.5, maxLat: 52.6 } },
      { bbox: { minLon: 0.5, minLat: 0.5, maxLon: 2.5, maxLat: 10 } },
      { bbox: { minLon: 170, minLat: -20, maxLon: -170, maxLat: 20 } },
      { bbox: { minLon: -10, minLat: 35, maxLon: 30, maxLat: 60 }, prover: `0x${"1".repeat(40)}` },
      { bbox: { minLon: -10, minLat: 35, maxLon: 30, maxLat: 60 }, times: [{ start: new Date(0) }] },
      { bbox: { minLon: -10, minLat: 35, maxLon: 30, maxLat: 60 }, bboxMatchesMissing: true },
      { bbox: { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 } },
    ];
    for (const f of none)
      expect(await countFromCells(app.db, f, countRows), JSON.stringify(f)).toBeUndefined();
  });
});
