import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { locationProofs } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { whereClause } from "../../lib/proofs/filter.js";
import { orderBy, orderKeys } from "../../lib/proofs/sort.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { recordingExecutes, type Statement } from "../helpers/statements.js";

// The bbox filter must be served by the GiST index over the box expression, never by a table scan — on
// PostgreSQL (CI's second pass) and on PGlite alike. The plan is read with EXPLAIN on a table big enough for the
// planner to prefer the index.
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, sampleProofs({ count: 20_000, seed: 5 }));
  await app.db.execute(sql`analyze location_proofs`);
});
afterAll(() => app.close());

async function plan(filter: Parameters<typeof whereClause>[0]): Promise<string> {
  const query = app.db
    .select()
    .from(locationProofs)
    .where(whereClause(filter))
    .orderBy(...orderBy(orderKeys()))
    .limit(100)
    .getSQL();
  const rows = await queryRows<{ "QUERY PLAN": string }>(app.db, sql`explain ${query}`);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

describe("bbox filter uses the GiST index", () => {
  // Two index scans each: for a plain box, the box on the main index and the box shifted by 360° (where the
  // unwrapped east part of bounds crossing the antimeridian lies: db/schema.ts, boundsBox) on their partial index.
  // tests/ogc/antimeridian.test.ts checks the OGC collections too.
  it("for a city-sized box", async () => {
    const text = await plan({ bbox: { minLon: 13.3, minLat: 52.4, maxLon: 13.5, maxLat: 52.6 } });
    expect(text.match(/location_proofs_bounds_gist/g)?.length).toBe(1);
    expect(text).toMatch(/location_proofs_crossing_bounds_gist/);
    expect(text).not.toMatch(/Seq Scan/);
  });
  it("for a box crossing the antimeridian (two index scans)", async () => {
    const text = await plan({ bbox: { minLon: 179, minLat: -20, maxLon: -179, maxLat: -10 } });
    expect(text.match(/location_proofs_bounds_gist/g)?.length).toBe(2);
    expect(text).not.toMatch(/Seq Scan/);
  });
});

/**
 * A page as the service reads it, its statements captured on their way to the database: the rows, and the plan of
 * the statement whose text matches `pick`, run again under `explain` (EXPLAIN, or EXPLAIN ANALYZE).
 */
async function capturedPage(
  request: { limit: number; offset?: number },
  pick: RegExp,
  explain: "explain" | "explain analyze",
): Promise<{ rows: unknown[]; plan: string[] }> {
  const { pageAndCount } = await import("../../lib/proofs/query.js");
  const { planPage } = await import("../../lib/proofs/plan.js");
  const { recordJson } = await import("../../lib/proofs/json-sql.js");
  const { PgDialect } = await import("drizzle-orm/pg-core");
  const statements: Statement[] = [];
  const db = recordingExecutes(app.db, statements);
  const { rows } = await pageAndCount(
    db,
    planPage({}, { ...request, json: recordJson }) as import("../../lib/proofs/plan.js").PagePlan,
  );
  const dialect = new PgDialect();
  const page = statements.find((q) => pick.test(dialect.sqlToQuery(q as never).sql));
  expect(page).toBeDefined();
  const plan = (await queryRows<{ "QUERY PLAN": string }>(app.db, sql`${sql.raw(explain)} ${page}`)).map(
    (r) => r["QUERY PLAN"],
  );
  return { rows, plan };
}

describe("an offset page pages the keys first", () => {
  it("builds the JSON of the page's own rows only, never of the rows it skips", async () => {
    // The page's statement as the service issues it, run again under EXPLAIN ANALYZE: every node of the plan that
    // runs per row (the JSON's subqueries) runs for the page's rows (limit + 1), while the key scan below them reads
    // past the offset.
    const offset = 12_000;
    const { rows, plan: text } = await capturedPage({ limit: 10, offset }, / offset /i, "explain analyze");
    expect(rows).toHaveLength(10);
    const loops = text.flatMap((line) => [...line.matchAll(/loops=(\d+)/g)].map((m) => Number(m[1])));
    expect(Math.max(...loops), text.join("\n")).toBeLessThanOrEqual(11);
    const scanned = text.flatMap((line) =>
      [...line.matchAll(/rows=(\d+)(?:\.\d+)? loops/g)].map((m) => Number(m[1])),
    );
    expect(Math.max(...scanned), text.join("\n")).toBeGreaterThanOrEqual(offset);
  });
});

describe("a page's statement streams", () => {
  it("sends its rows in order as the window passes them, with no sort holding the page above it", async () => {
    // The page's statement (its byte budget's window included, lib/proofs/rows.ts withinBytes), explained: a Sort at
    // its top would hold every row, JSON written, until the last.
    const { rows, plan: text } = await capturedPage({ limit: 500 }, /page_run/, "explain");
    expect(rows).toHaveLength(500);
    const window = text.findIndex((line) => /WindowAgg/.test(line));
    expect(window, text.join("\n")).toBeGreaterThanOrEqual(0);
    // Nothing above the window but the scan of its rows.
    expect(text.slice(0, window).join("\n")).not.toMatch(/Sort|Materialize|Hash/);
    // In the page's order (event time, newest first, then uid): the rows as received equal them sorted.
    const received = (rows as { eventTimestamp: Date | null; uid: string }[]).map((r) => ({
      t: r.eventTimestamp === null ? Number.NEGATIVE_INFINITY : new Date(r.eventTimestamp).getTime(),
      uid: r.uid,
    }));
    const sorted = [...received].sort((a, b) => b.t - a.t || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    expect(new Set(received.map((r) => r.t)).size).toBeGreaterThan(100);
    expect(received).toEqual(sorted);
  });
});

describe("a deep offset of the native list walks the order index alone", () => {
  it("reads the keys it skips, revoked ones left out, by an index-only scan (the index holds `revoked`: 0012)", async () => {
    const { pageAndCount } = await import("../../lib/proofs/query.js");
    const { planPage } = await import("../../lib/proofs/plan.js");
    const { recordJson } = await import("../../lib/proofs/json-sql.js");
    const statements: Statement[] = [];
    // The native list's filter: revoked proofs left out.
    const plan = planPage({}, { limit: 10, offset: 12_000, json: recordJson });
    await pageAndCount(
      recordingExecutes(app.db, statements),
      plan as import("../../lib/proofs/plan.js").PagePlan,
    );
    const page = statements.find((q) => / offset /i.test(new PgDialect().sqlToQuery(q as never).sql));
    expect(page).toBeDefined();
    // The visibility map lets an index-only scan skip the table (autovacuum sets it on a real one). The planner is
    // kept off the table scan and the sort, so the plan shows what the indexes can serve, not what the statistics
    // of a small table prefer.
    await app.db.execute(sql`vacuum analyze location_proofs`);
    const text = await app.db.transaction(async (tx) => {
      for (const setting of ["enable_seqscan", "enable_sort", "enable_bitmapscan"])
        await tx.execute(sql.raw(`set local ${setting} = off`));
      const rows = await queryRows<{ "QUERY PLAN": string }>(tx as never, sql`explain ${page}`);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(text).toMatch(/Index Only Scan using location_proofs_order_idx/);
    expect(text).toMatch(/Filter: \(NOT revoked\)|Filter: \(revoked = false\)/);
  });
});
