import { inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocationProofRow, locationProofs } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { locationColumns } from "../../lib/location/columns.js";
import { countProofs } from "../../lib/proofs/count.js";
import type { ProofFilter } from "../../lib/proofs/filter.js";
import { MAX_INSTANT, MIN_INSTANT } from "../../lib/proofs/timestamps.js";
import { countFromTotals } from "../../lib/proofs/totals.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// proof_counts and proof_day_counts are kept by triggers (db/migrations/0000_baseline.sql). After every kind of write
// the sync engine makes — plain inserts, upserts that change a row's group, revocations, deletes of orphaned blocks —
// and a truncate, the totals must equal a real COUNT for every filter they answer.
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const FILTERS: ProofFilter[] = [];
for (const includeRevoked of [false, true])
  for (const chains of [undefined, ["base"], ["base", "celo"], ["devnet"]])
    for (const hasCoordinates of [undefined, true, false])
      for (const world of [false, true])
        FILTERS.push({
          includeRevoked,
          ...(chains ? { chains } : {}),
          ...(hasCoordinates !== undefined ? { hasCoordinates } : {}),
          ...(world ? { bbox: { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 } } : {}),
        });

// Time windows answered from proof_day_counts: whole days plus the rows of the partial edge days. NOW is the
// sample's newest event; windows start and end at midnight, one millisecond either side of it, mid-day, open.
const NOW = new Date("2026-06-15T12:00:00Z");
const DAY = 86_400_000;
const at = (daysAgo: number, ms = 0) => new Date(Date.parse("2026-06-15T00:00:00Z") - daysAgo * DAY + ms);
const WINDOWS = [
  { start: at(30), end: at(0) },
  { start: at(30, -1), end: at(10, 1) },
  { start: at(30, 1), end: at(10, -1) },
  { start: at(45, 13 * 3_600_000 + 7_000), end: at(2, 5 * 3_600_000) },
  { start: at(60, 43_200_000) },
  { end: at(20, 43_200_000) },
  { start: at(20), end: at(18) },
  { start: new Date("0001-01-01T00:00:00Z"), end: new Date("9999-12-31T23:59:59.999Z") },
  // Windows at the ends of the accepted range, whose whole days and edge days end or start at 10000-01-01 (the
  // midnight after the last accepted instant) or at 0001-01-01.
  { start: new Date(MAX_INSTANT.getTime() - DAY / 2) },
  { start: MAX_INSTANT },
  { start: new Date(MAX_INSTANT.getTime() - 3 * DAY + 1), end: MAX_INSTANT },
  { start: new Date(MAX_INSTANT.getTime() - 3 * DAY), end: new Date(MAX_INSTANT.getTime() - DAY / 2) },
  { end: MIN_INSTANT },
  { start: MIN_INSTANT, end: new Date(MIN_INSTANT.getTime() + 2 * DAY + 1) },
  { start: new Date(MIN_INSTANT.getTime() + 1), end: new Date(MIN_INSTANT.getTime() + 3 * DAY - 1) },
];
const WINDOW_FILTERS: ProofFilter[] = [];
for (const includeRevoked of [false, true])
  for (const chains of [undefined, ["base"], ["base", "celo"]]) {
    const base = { includeRevoked, ...(chains ? { chains } : {}) };
    for (const w of WINDOWS) WINDOW_FILTERS.push({ ...base, times: [w] });
    // OGC: a world bbox under the "matches missing" rule is no condition; the proofs without an event time.
    WINDOW_FILTERS.push({
      ...base,
      times: [WINDOWS[0]!],
      bbox: { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 },
      bboxMatchesMissing: true,
    });
    WINDOW_FILTERS.push({ ...base, hasEventTime: false });
  }

const countRows = (f: ProofFilter) => countProofs(app.db, f);

async function expectTotalsExact(step: string) {
  for (const filter of [...FILTERS, ...WINDOW_FILTERS]) {
    const fromTotals = await countFromTotals(app.db, filter, countRows);
    expect(fromTotals, `${step}: ${JSON.stringify(filter)}`).toBe(await countProofs(app.db, filter));
  }
}

describe("proof_counts", () => {
  it("stays exact through inserts, upserts, revocations, deletes and truncate", async () => {
    // Some proofs without an event time, as the indexer stores an absent or unreadable eventTimestamp.
    // And some on the first and last days a time filter accepts (the first-day ones among those the upsert below
    // leaves alone: it moves some three days back).
    const rows = sampleProofs({ count: 400, seed: 23, now: NOW }).map((r, i) =>
      i % 11 === 0
        ? { ...r, eventTimestamp: null }
        : i % 17 === 1
          ? { ...r, eventTimestamp: new Date(MAX_INSTANT.getTime() - (i % 3) * (DAY / 2)) }
          : i % 19 === 1 && i < 200
            ? { ...r, eventTimestamp: new Date(MIN_INSTANT.getTime() + (i % 3) * (DAY / 2)) }
            : r,
    );
    await expectTotalsExact("empty");
    await insertProofs(app.db, rows.slice(0, 300));
    await expectTotalsExact("insert");

    // An upsert as the sync engine writes: 100 new rows and 100 existing ones whose group changes (coordinates
    // dropped, chain kept, revoked flipped), in one statement.
    const changed = rows.slice(200, 300).map((r, i) => ({
      ...r,
      // Some move to another day, or lose their event time.
      ...(i % 5 === 0
        ? { eventTimestamp: r.eventTimestamp ? new Date(r.eventTimestamp.getTime() - 3 * DAY) : null }
        : {}),
      ...(i % 7 === 1 ? { eventTimestamp: null } : {}),
      revoked: i % 2 === 0 ? !r.revoked : r.revoked,
      ...(i % 3 === 0
        ? locationColumns({ geometry: null, longitude: null, latitude: null, bbox: null })
        : {}),
    }));
    await app.db
      .insert(locationProofs)
      .values([...rows.slice(300, 400), ...changed])
      .onConflictDoUpdate({
        target: [locationProofs.chainId, locationProofs.uid],
        set: {
          revoked: sql`excluded.revoked`,
          eventTimestamp: sql`excluded.event_timestamp`,
          // All location columns together, as the sync engine writes them (a check constraint requires it).
          geometry: sql`excluded.geometry`,
          longitude: sql`excluded.longitude`,
          latitude: sql`excluded.latitude`,
          minLon: sql`excluded.min_lon`,
          minLat: sql`excluded.min_lat`,
          maxLon: sql`excluded.max_lon`,
          maxLat: sql`excluded.max_lat`,
        },
      });
    await expectTotalsExact("upsert");

    await app.db
      .update(locationProofs)
      .set({ revoked: true })
      .where(sql`${locationProofs.blockNumber} % 7 = 0`);
    await expectTotalsExact("revocations");

    const gone = rows.slice(0, 50).map((r: Partial<LocationProofRow>) => r.uid!);
    await app.db.delete(locationProofs).where(inArray(locationProofs.uid, gone));
    await expectTotalsExact("delete");

    await app.db
      .transaction(async (tx) => {
        await tx.delete(locationProofs).where(sql`${locationProofs.chain} = 'base'`);
        tx.rollback();
      })
      .catch(() => {});
    await expectTotalsExact("rolled back delete");

    await app.db.execute(sql`truncate location_proofs`);
    await expectTotalsExact("truncate");
    await insertProofs(app.db, rows.slice(0, 120));
    await expectTotalsExact("insert after truncate");
  });

  it("answers every window of two days or more, and is not used for filters it cannot answer", async () => {
    for (const filter of WINDOW_FILTERS) {
      const w = filter.times?.[0];
      const short = w?.start && w.end && w.end.getTime() - w.start.getTime() < 2 * DAY;
      if (!short)
        expect(await countFromTotals(app.db, filter, countRows), JSON.stringify(filter)).toBeDefined();
    }
    const none = [
      { prover: `0x${"1".repeat(40)}` },
      // A box with fewer than 2 × 2 whole cells inside (a larger one is answered by proof_cell_counts).
      { bbox: { minLon: 0.5, minLat: 0.5, maxLon: 2.5, maxLat: 2.5 } },
      { times: [{ start: at(30) }], prover: `0x${"1".repeat(40)}` },
      { times: [{ start: at(30) }], hasCoordinates: true },
      { times: [{ start: at(30) }, { end: at(5) }] },
      { times: [{ start: at(1), end: at(0) }] },
    ];
    for (const filter of none) expect(await countFromTotals(app.db, filter, countRows)).toBeUndefined();
  });
});
