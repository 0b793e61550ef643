import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { loadSyntheticProofs } from "../../lib/local/synthetic-proofs.js";
import { itemsFilter } from "../../lib/ogc/items.js";
import { parseSortby } from "../../lib/ogc/sortby.js";
import { COLLECTIONS } from "../../lib/ogc/vocabulary.js";
import { type PagePlan, planPage } from "../../lib/proofs/plan.js";
import { SORTABLE_PROPERTIES } from "../../lib/proofs/properties.js";
import { pageAndCount } from "../../lib/proofs/query.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { recordingExecutes, type Statement } from "../helpers/statements.js";

/**
 * Every order sortby offers is an index seek on every page: the statements of a page after a cursor, run again under
 * EXPLAIN ANALYZE, read about a page of rows, never the rest of a chain or of a prover's proofs to sort them. The data:
 * synthetic proofs (four chains, Zipf provers: the busiest attests ~7%), so a value of chain is shared by thousands.
 */
let app: TestApp;
const ITEMS = "/api/ogc/collections/location-proofs/items";
const LIMIT = 50;

beforeAll(async () => {
  app = await createTestApp();
  await loadSyntheticProofs(app.db, { count: 6000, end: new Date("2026-06-01T00:00:00Z") });
  await app.db.execute(sql`analyze location_proofs`);
  // Loading takes a while on a busy machine.
}, 300_000);
afterAll(() => app?.close());

/** The statements a page issues, captured on their way to the database. */
async function pageStatements(sortby: string, cursor: string): Promise<unknown[]> {
  const statements: Statement[] = [];
  const db = recordingExecutes(app.db, statements);
  const plan = planPage(itemsFilter({}, COLLECTIONS["location-proofs"]), {
    limit: LIMIT,
    cursor,
    sort: parseSortby(sortby),
  });
  expect(plan).toHaveProperty("keys");
  const { rows } = await pageAndCount(db, plan as PagePlan);
  expect(rows.length).toBe(LIMIT);
  return statements;
}

/** The most rows any node of a statement's plan produced, with the plan. */
async function mostRows(statement: unknown): Promise<{ most: number; plan: string }> {
  const text = (
    await queryRows<{ "QUERY PLAN": string }>(
      app.db,
      sql`explain analyze ${statement as ReturnType<typeof sql>}`,
    )
  ).map((r) => r["QUERY PLAN"]);
  const rows = text.flatMap((line) => [...line.matchAll(/actual [^)]*rows=(\d+)/g)].map((m) => Number(m[1])));
  return { most: Math.max(0, ...rows), plan: text.join("\n") };
}

describe("every sortby is an index seek on every page", () => {
  const orders = SORTABLE_PROPERTIES.flatMap((q) => [q.name, `-${q.name}`]);

  it.each(orders)("sortby=%s: the third page reads about a page of rows", async (sortby) => {
    let next: string | undefined;
    for (let page = 0; page < 2; page++) {
      const res = await app.get(`${ITEMS}?limit=${LIMIT}&sortby=${sortby}${next ? `&cursor=${next}` : ""}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const href = res.body.links.find((l: { rel: string }) => l.rel === "next").href as string;
      next = encodeURIComponent(new URL(href).searchParams.get("cursor")!);
    }
    const statements = await pageStatements(sortby, decodeURIComponent(next!));
    const dialect = new PgDialect();
    const reads = statements.filter((s) => /order by/i.test(dialect.sqlToQuery(s as never).sql));
    expect(reads.length).toBeGreaterThan(0);
    for (const statement of reads) {
      const { most, plan } = await mostRows(statement);
      expect(most, plan).toBeLessThanOrEqual(4 * (LIMIT + 1));
    }
  });

  // A further property only after one whose values rarely tie.
  it.each(["chain,-block_number", "prover,attestation_time", "-subject,attestation_time", "longitude,chain"])(
    "refuses %s: its first property's values tie often",
    async (sortby) => {
      const res = await app.get(`${ITEMS}?sortby=${sortby}`);
      expect(res.status, sortby).toBe(400);
      expect(res.body).toMatchObject({ code: "InvalidParameterValue", parameter: "sortby" });
    },
  );
  it.each(["block_number,-chain", "-attestation_time,prover", "uid,chain", "-subject,-uid", "latitude,uid"])(
    "accepts %s: its first property's values rarely tie",
    async (sortby) => {
      const res = await app.get(`${ITEMS}?limit=3&sortby=${sortby}`);
      expect(res.status, sortby).toBe(200);
    },
  );
});
