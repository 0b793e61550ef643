import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUBQUERY_FENCE } from "../../db/index-steering.js";
import { locationProofs as p, singleCell } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { overlaps, spanningBoundsIntersect, whereClause } from "../../lib/proofs/filter.js";
import { distanceJson } from "../../lib/proofs/json-sql.js";
import { orderBy, orderKeys } from "../../lib/proofs/sort.js";
import { proofsFrom } from "../../lib/proofs/source.js";
import { tileFilter } from "../../lib/tiles/tile-content.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

// The index-steering idioms (db/index-steering.ts), each where the service uses it: with it, the plan keeps off the
// index it steers away from (and uses the one it steers to); the same statement without it (the control) does use
// that index, so a helper or a use site that loses its idiom fails here. The planner is pushed towards the index in
// question (enable_seqscan or enable_sort off, in one transaction), so each plan depends on what the indexes can
// serve, not on the table's statistics. On PGlite, and on PostgreSQL in CI's second pass (DATABASE_URL).
let app: TestApp;
// A small table is enough: the settings, not the statistics, decide which indexes a plan may use.
beforeAll(async () => {
  const created = await createTestApp();
  app = created;
  await insertProofs(created.db, sampleProofs({ count: 2000, seed: 9 }));
});
afterAll(() => app.close());

async function explain(query: SQL, settings: string[], verbose = false): Promise<string> {
  const rows = await app.db.transaction(async (tx) => {
    for (const setting of settings) await tx.execute(sql.raw(`set local ${setting} = off`));
    const result = await tx.execute(sql`explain ${verbose ? sql.raw("(verbose) ") : sql``}${query}`);
    return (result as unknown as { rows: { "QUERY PLAN": string }[] }).rows;
  });
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

const uses = (index: string) => new RegExp(`\\b${index}\\b`);
const CITY = { minLon: 13.3, minLat: 52.4, maxLon: 13.5, maxLat: 52.6 };
const select = (where: SQL | undefined, order: SQL[] = []) =>
  sql`select ${p.uid} from ${p} where ${where ?? sql`true`}${order.length ? sql` order by ${sql.join(order, sql`, `)}` : sql``} limit 10`;

describe("unindexed (coalesce(x, x))", () => {
  it("a page of a selective filter sorts its matches instead of walking the order's index (orderBy avoidIndex)", async () => {
    const where = whereClause({ bbox: CITY });
    const steered = await explain(select(where, orderBy(orderKeys(), { avoidIndex: true })), ["enable_sort"]);
    expect(steered).toMatch(uses("location_proofs_bounds_gist"));
    expect(steered).not.toMatch(uses("location_proofs_order_idx"));
    const control = await explain(select(where, orderBy(orderKeys())), ["enable_sort"]);
    expect(control).toMatch(uses("location_proofs_order_idx"));
  });

  it("a point collection's box tests the point without the longitude and latitude btrees", async () => {
    const where = whereClause({ bbox: CITY, bboxOn: "point" });
    const steered = await explain(select(where), ["enable_seqscan"]);
    expect(steered).toMatch(uses("location_proofs_point_gist"));
    expect(steered).not.toMatch(/location_proofs_(longitude|latitude)_idx/);
    const plain = sql`${p.longitude} between ${CITY.minLon}::float8 and ${CITY.maxLon}::float8`;
    const control = await explain(select(plain), ["enable_seqscan"]);
    expect(control).toMatch(/location_proofs_longitude_idx/);
  });

  it("a point collection's box over both sources reads the off-chain records through their point's index too", async () => {
    const where = whereClause({ bbox: CITY, bboxOn: "point", source: "all" });
    const plan = await explain(sql`select uid from ${proofsFrom("all")} where ${where} limit 10`, [
      "enable_seqscan",
    ]);
    expect(plan).toMatch(uses("location_proofs_point_gist"));
    expect(plan).toMatch(uses("offchain_records_point_gist"));
  });

  it("a small box's page on the point collection sorts its keys from the point's index alone (keysFirst)", async () => {
    // The visibility map lets an index-only scan skip the table (autovacuum would set it on a real table).
    await app.db.execute(sql`vacuum analyze ${p}`);
    // As the OGC collection reads it: revoked proofs included (a filter on `revoked` would need the table).
    const where = sql`${whereClause({ bbox: CITY, bboxOn: "point", includeRevoked: true })} and ${p.eventTimestamp} is not null`;
    const keys = sql`select ${p.chainId}, ${p.uid} from ${p} where ${where} order by ${sql.join(orderBy(orderKeys(), { avoidIndex: true }), sql`, `)} limit 11`;
    const plan = await explain(keys, ["enable_seqscan", "enable_bitmapscan"]);
    expect(plan).toMatch(/Index Only Scan using location_proofs_point_gist/);
    // The control: the bounds' index (the point collection's before) cannot answer the keys without the table.
    const bounds = sql`${whereClause({ bbox: CITY, includeRevoked: true })} and ${p.eventTimestamp} is not null`;
    const control = await explain(
      sql`select ${p.chainId}, ${p.uid} from ${p} where ${bounds} order by ${sql.join(orderBy(orderKeys(), { avoidIndex: true }), sql`, `)} limit 11`,
      ["enable_seqscan", "enable_bitmapscan"],
    );
    expect(control).not.toMatch(/Index Only Scan/);
  });

  it("an unindexed time interval is only a filter on the rows the order's index finds", async () => {
    const times = [{ start: new Date(Date.now() - 30 * 86_400_000) }];
    const steered = await explain(select(whereClause({ times }, { times: false })), ["enable_seqscan"]);
    expect(steered).not.toMatch(/Index Cond:[^\n]*event_timestamp/);
    const control = await explain(select(whereClause({ times })), ["enable_seqscan"]);
    expect(control).toMatch(/Index Cond:[^\n]*event_timestamp/);
  });

  it("a tile's chain is tested on the tile's candidates, never through the chain's index (tileFilter)", async () => {
    const tile = tileFilter({ chains: ["base"] }, { z: 4, x: 8, y: 5 });
    const steered = await explain(select(whereClause(tile)), ["enable_seqscan"]);
    expect(steered).toMatch(uses("location_proofs_tile_key_idx"));
    expect(steered).not.toMatch(/location_proofs_chain\w*_idx/);
    const control = await explain(select(whereClause({ chains: ["base"] })), ["enable_seqscan"]);
    expect(control).toMatch(/location_proofs_chain\w*_idx/);
  });
});

describe("unindexedBox (box - point(0, 0))", () => {
  it("an unindexed bbox is only a filter: no GiST index serves it", async () => {
    const steered = await explain(select(whereClause({ bbox: CITY }, { bbox: false })), ["enable_seqscan"]);
    expect(steered).not.toMatch(/_bounds_gist/);
    const control = await explain(select(whereClause({ bbox: CITY })), ["enable_seqscan"]);
    expect(control).toMatch(uses("location_proofs_bounds_gist"));
  });
});

describe("distinctBoxForm (box + point(0, 0))", () => {
  it("a spanning bounds test is answered by the partial index alone (spanningBoundsIntersect)", async () => {
    const spanning = sql`not ${singleCell(p)}`;
    const steered = await explain(select(sql`${spanning} and ${spanningBoundsIntersect(CITY)}`), [
      "enable_seqscan",
    ]);
    expect(steered).toMatch(uses("location_proofs_spanning_bounds_gist"));
    expect(steered).not.toMatch(uses("location_proofs_bounds_gist"));
    const control = await explain(select(sql`${spanning} and ${overlaps(13.3, 52.4, 13.5, 52.6)}`), [
      "enable_seqscan",
    ]);
    expect(control).toMatch(uses("location_proofs_bounds_gist"));
    expect(control).not.toMatch(uses("location_proofs_spanning_bounds_gist"));
  });
});

describe("SUBQUERY_FENCE (offset 0)", () => {
  it("a distance written as JSON is computed once, not copied into each of its uses (distanceJson)", async () => {
    // A marker expression stands for the distance: the plan's output names it as often as it is computed.
    const marker = sql`(${p.longitude} * 7.25::float8)`;
    const computed = (plan: string) => plan.match(/\* '?7\.25'?/g)?.length ?? 0;
    const statement = new PgDialect().sqlToQuery(sql`select ${distanceJson(marker)} from ${p} limit 1`);
    expect(statement.params).toEqual([]);
    expect(computed(await explain(sql.raw(statement.sql), [], true))).toBe(1);
    // The same statement without the fence: the subquery is pulled up and the distance copied into each use.
    const fence = new PgDialect().sqlToQuery(SUBQUERY_FENCE).sql;
    expect(statement.sql).toContain(` ${fence})`);
    const unfenced = statement.sql.replace(` ${fence})`, ")");
    expect(computed(await explain(sql.raw(unfenced), [], true))).toBeGreaterThan(1);
  });
});
