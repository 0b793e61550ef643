import { inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocationProofRow, locationProofs } from "../db/schema.js";
import { insertProofs, sampleProofs } from "../lib/local/sample-proofs.js";
import { locationColumns } from "../lib/location/columns.js";
import type { ProofFilter } from "../lib/proofs/filter.js";
import { countProofs } from "../lib/proofs/query.js";
import { countFromTotals } from "../lib/proofs/totals.js";
import { createTestApp, type TestApp } from "./helpers/app.js";

// proof_counts is kept by triggers (db/migrations/0003). After every kind of write the sync engine makes — plain
// inserts, upserts that change a row's group, revocations, deletes of orphaned blocks — and a truncate, the totals
// must equal a real COUNT for every filter they answer.
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

async function expectTotalsExact(step: string) {
  for (const filter of FILTERS) {
    const fromTotals = await countFromTotals(app.db, filter);
    expect(fromTotals, `${step}: ${JSON.stringify(filter)}`).toBe(await countProofs(app.db, filter));
  }
}

describe("proof_counts", () => {
  it("stays exact through inserts, upserts, revocations, deletes and truncate", async () => {
    const rows = sampleProofs({ count: 400, seed: 23 });
    await expectTotalsExact("empty");
    await insertProofs(app.db, rows.slice(0, 300));
    await expectTotalsExact("insert");

    // An upsert as the sync engine writes: 100 new rows and 100 existing ones whose group changes (coordinates
    // dropped, chain kept, revoked flipped), in one statement.
    const changed = rows.slice(200, 300).map((r, i) => ({
      ...r,
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

  it("is not used for filters it cannot answer", async () => {
    expect(await countFromTotals(app.db, { prover: `0x${"1".repeat(40)}` })).toBeUndefined();
    expect(
      await countFromTotals(app.db, { bbox: { minLon: 0, minLat: 0, maxLon: 10, maxLat: 10 } }),
    ).toBeUndefined();
    expect(await countFromTotals(app.db, { times: [{ start: new Date() }] })).toBeUndefined();
  });
});
