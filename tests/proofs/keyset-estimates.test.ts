import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { locationProofs as p } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { type Cursor, keysetSegments, orderKeys } from "../../lib/proofs/sort.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// A keyset page's conditions (lib/proofs/sort.ts, keysetSegments) as the planner sees them: its estimate of the rows
// past a cursor must be near the rows that are there. Written with the first key's range twice (the seek `t <= v`
// and `t < v or …`) or its null test twice, PostgreSQL multiplied the two selectivities and, near the end of a list,
// expected fewer rows than a page: it then read every remaining row by a bitmap and sorted them, page after page (a
// download's last batches took five times the others). On PGlite, and on PostgreSQL in CI's second pass.
let app: TestApp;
const NOW = new Date("2025-06-01T00:00:00Z");

beforeAll(async () => {
  app = await createTestApp();
  // Every 7th proof without an event time: a null part large enough to page through.
  const rows = sampleProofs({ count: 4000, seed: 31, now: NOW }).map((r, i) =>
    i % 7 === 3 ? { ...r, eventTimestamp: null, eventTimestampRaw: "0" } : r,
  );
  await insertProofs(app.db, rows);
  await app.db.execute(sql`analyze location_proofs`);
});
afterAll(() => app.close());

type Key = { event_timestamp: string | null; uid: string; chain_id: number };

/** The planner's estimate of the rows a condition selects, and the rows it does select. */
async function estimateAndCount(where: SQL): Promise<{ estimate: number; actual: number }> {
  const plan = await queryRows<{ "QUERY PLAN": string }>(
    app.db,
    sql`explain select 1 from ${p} where ${where}`,
  );
  const estimate = Number(/rows=(\d+)/.exec(plan[0]!["QUERY PLAN"])![1]);
  const [row] = await queryRows<{ n: number }>(
    app.db,
    sql`select count(*)::int as n from ${p} where ${where}`,
  );
  return { estimate, actual: row!.n };
}

const cursorAt = (key: Key, direction: Cursor["direction"] = "next"): Cursor => ({
  direction,
  position: 0,
  values: [key.event_timestamp && new Date(key.event_timestamp).toISOString(), key.uid, key.chain_id],
});

describe("a keyset page's estimate of the rows past its cursor", () => {
  let keys: Key[];
  beforeAll(async () => {
    keys = await queryRows<Key>(
      app.db,
      sql`select event_timestamp::text, uid, chain_id from ${p}
          order by event_timestamp desc nulls last, uid, chain_id`,
    );
  });

  it("near the end of the values: the remaining rows, not a fraction of them", async () => {
    const withTime = keys.filter((k) => k.event_timestamp !== null);
    const cursor = cursorAt(withTime[Math.floor(withTime.length * 0.85)]!);
    const [nonNull, nulls] = keysetSegments(orderKeys(), cursor);
    const past = await estimateAndCount(nonNull!.where!);
    expect(past.actual).toBeGreaterThan(400);
    expect(past.estimate, JSON.stringify(past)).toBeGreaterThan(past.actual / 2);
    expect(past.estimate, JSON.stringify(past)).toBeLessThan(past.actual * 2);
    // After a value, every null is past the cursor: the null part is the null test alone.
    const allNulls = await estimateAndCount(nulls!.where!);
    expect(allNulls.actual).toBe(keys.length - withTime.length);
    expect(allNulls.estimate).toBeGreaterThan(allNulls.actual / 2);
  });

  it("within the nulls: a seek on the uid, and the remaining nulls' number", async () => {
    const nulls = keys.filter((k) => k.event_timestamp === null);
    const cursor = cursorAt(nulls[Math.floor(nulls.length * 0.3)]!);
    const segments = keysetSegments(orderKeys(), cursor);
    expect(segments).toHaveLength(1);
    const past = await estimateAndCount(segments[0]!.where!);
    expect(past.actual).toBe(nulls.length - Math.floor(nulls.length * 0.3) - 1);
    expect(past.estimate, JSON.stringify(past)).toBeGreaterThan(past.actual / 2);
    expect(past.estimate, JSON.stringify(past)).toBeLessThan(past.actual * 2);
  });

  it("reading backward from a value: the rows before it", async () => {
    const withTime = keys.filter((k) => k.event_timestamp !== null);
    const at = Math.floor(withTime.length * 0.2);
    const [before] = keysetSegments(orderKeys(), cursorAt(withTime[at]!, "prev"));
    const past = await estimateAndCount(before!.where!);
    expect(past.actual).toBe(at);
    expect(past.estimate, JSON.stringify(past)).toBeGreaterThan(past.actual / 2);
    expect(past.estimate, JSON.stringify(past)).toBeLessThan(past.actual * 2);
  });
});
