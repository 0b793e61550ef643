import { getTableColumns, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { locationProofs, offchainRecords } from "../../db/schema.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { loadSyntheticProofs } from "../../lib/local/synthetic-proofs.js";
import { cql2Filter } from "../../lib/ogc/cql2/index.js";
import type { ProofFilter } from "../../lib/proofs/filter.js";
import { encodeTile } from "../../lib/tiles/mvt.js";
import { type TileContent, tileContent, tileContentFromRows } from "../../lib/tiles/tile-content.js";
import type { TileAddress } from "../../lib/tiles/web-mercator.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { recordingExecutes, type Statement } from "../helpers/statements.js";
import { decodeTile } from "./decode.js";

/**
 * A tile whose filter the counts cannot answer (a time window, a prover, a CQL2 filter, …) reads at most its row
 * budget of proofs, at every zoom: the statements it issues, run again under EXPLAIN ANALYZE, never produce more rows
 * than that in any node. Up to the budget the tile is exact (tests/tiles/tiles.test.ts: against the items); beyond
 * it, the cells it could not read whole are estimated and say so, and the cells it read whole stay exact.
 */
let app: TestApp;
const END = new Date("2026-06-01T00:00:00Z");
const OGC: ProofFilter = {
  includeRevoked: true,
  bboxMatchesMissing: true,
  timesMatchMissing: true,
  bboxOn: "point",
};
const BUDGET = 640;
const Z0: TileAddress = { z: 0, x: 0, y: 0 };

beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, sampleProofs({ count: 150, seed: 5, now: END }));
  await loadSyntheticProofs(app.db, { count: 3000, end: END, days: 60 });
  await app.db.execute(sql`analyze location_proofs`);
});
afterAll(() => app?.close());

/** The busiest prover of the data (Zipf: the first rank). */
async function busiestProver(): Promise<string> {
  const [row] = await queryRows<{ prover: string }>(
    app.db,
    sql`select prover from location_proofs group by prover order by count(*) desc limit 1`,
  );
  return row!.prover;
}

const FILTERS = async (): Promise<[string, ProofFilter][]> => [
  ["the last 7 days", { ...OGC, times: [{ start: new Date(END.getTime() - 7 * 86_400_000), end: END }] }],
  ["the last 30 days", { ...OGC, times: [{ start: new Date(END.getTime() - 30 * 86_400_000), end: END }] }],
  ["a busy prover", { ...OGC, prover: await busiestProver() }],
  ["CQL2 revoked = false", { ...OGC, where: [cql2Filter("revoked = false", "point")] }],
  [
    "a chain and a time window",
    { ...OGC, chains: ["base"], times: [{ start: new Date(END.getTime() - 20 * 86_400_000) }] },
  ],
];

/** The tile for the filter with the budget, and the most rows any node of its statements produced. */
async function budgeted(
  t: TileAddress,
  filter: ProofFilter,
  budget = BUDGET,
): Promise<{ content: TileContent; most: number }> {
  const statements: Statement[] = [];
  const db = recordingExecutes(app.db, statements);
  const content = await tileContent(db, t, filter, budget);
  let most = 0;
  const dialect = new PgDialect();
  // The proofs read: the counts a tile reads first are a few rows per cell (tests/tiles/tile-counts.test.ts).
  const reads = statements.filter((s) => !/proof_tile_counts/.test(dialect.sqlToQuery(s as never).sql));
  for (const statement of reads) {
    const plan = await queryRows<{ "QUERY PLAN": string }>(
      app.db,
      sql`explain analyze ${statement as ReturnType<typeof sql>}`,
    );
    // A bitmap of index entries is not a proof read (the planner ANDs it with another when that is cheaper).
    for (const { "QUERY PLAN": line } of plan.filter((r) => !/Bitmap Index Scan/.test(r["QUERY PLAN"])))
      for (const m of line.matchAll(/actual [^)]*rows=(\d+)/g)) most = Math.max(most, Number(m[1]));
    if (most > BUDGET + 1) console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
  }
  return { content, most };
}

describe("a filtered tile reads at most its row budget", () => {
  it("for each map chip, a busy prover, a CQL2 filter and a chain with a time window, at z0 and over Tokyo", async () => {
    for (const [name, filter] of await FILTERS()) {
      for (const t of [Z0, { z: 3, x: 7, y: 3 }, { z: 6, x: 56, y: 25 }]) {
        const exact = await tileContentFromRows(app.db, t, filter);
        expect(exact.kind === "clusters" ? exact.total : exact.points.length).toBeGreaterThan(0);
        const { most } = await budgeted(t, filter);
        expect(most, `${name} at ${t.z}/${t.x}/${t.y}`).toBeLessThanOrEqual(BUDGET + 1);
      }
    }
  });

  it("cells read whole are exact; the others are estimates that say so", async () => {
    let estimatedTiles = 0;
    let overTokyo = 0;
    for (const [name, filter] of await FILTERS())
      for (const t of [Z0, { z: 3, x: 7, y: 3 }]) {
        const exact = await tileContentFromRows(app.db, t, filter);
        // Over Tokyo a smaller budget: the test's few proofs there would all be read.
        const { content } = await budgeted(t, filter, t.z ? 128 : BUDGET);
        // A tile read whole (few proofs, or a prover through its own index) is the exact tile.
        if (content.kind === "points" || !content.clusters.some((c) => c.approximate)) {
          if (content.kind === "points" || exact.kind === "clusters") expect(content, name).toEqual(exact);
          continue;
        }
        estimatedTiles++;
        if (t.z > 0) overTokyo++;
        // The truth per cell of the tile's 8 x 8 grid: the exact clusters, or the exact points counted by cell.
        const truth = new Map<string, number>();
        const cellOf = (px: number, py: number) => `${px >> 9},${py >> 9}`;
        if (exact.kind === "clusters") for (const c of exact.clusters) truth.set(cellOf(c.px, c.py), c.count);
        else
          for (const p of exact.points)
            truth.set(cellOf(p.px, p.py), (truth.get(cellOf(p.px, p.py)) ?? 0) + 1);
        const exactTotal = [...truth.values()].reduce((a, b) => a + b, 0);
        for (const c of content.clusters) {
          const n = truth.get(cellOf(c.px, c.py));
          expect(n, `${name} ${t.z}/${t.x}/${t.y}: a cluster where the filter matches`).toBeDefined();
          if (!c.approximate) {
            expect(c.count, name).toBe(n);
            if (exact.kind === "clusters")
              expect(c, name).toEqual(exact.clusters.find((e) => cellOf(e.px, e.py) === cellOf(c.px, c.py)));
          } else expect(c.uid).toBeNull();
        }
        // The estimate is of the right size (a sample of BUDGET / 64 proofs a cell), never a silent undercount.
        expect(content.total / exactTotal, name).toBeGreaterThan(0.5);
        expect(content.total / exactTotal, name).toBeLessThan(2);
        // A client reads the mark (an MVT property of the cluster).
        const decoded = decodeTile(encodeTile(content));
        expect(decoded.clusters.filter((c) => c.properties.approximate === true).length).toBe(
          content.clusters.filter((c) => c.approximate).length,
        );
      }
    expect(estimatedTiles).toBeGreaterThanOrEqual(4);
    expect(overTokyo).toBeGreaterThanOrEqual(1);
  });

  it("a prover with few proofs is exact in a crowded tile: read through its own index", async () => {
    const [rare] = await queryRows<{ prover: string; n: number }>(
      app.db,
      sql`select prover, count(*)::int as n from location_proofs where longitude is not null
        group by prover having count(*) between 3 and 20 order by count(*) desc, prover limit 1`,
    );
    const filter = { ...OGC, prover: rare!.prover };
    const { content, most } = await budgeted(Z0, filter);
    expect(content).toEqual(await tileContentFromRows(app.db, Z0, filter));
    expect(most).toBeLessThanOrEqual(BUDGET + 1);
  });
});

describe("a tile of both sources (source=all)", () => {
  it("adds the off-chain records of each cell to its candidates: a filter matching every record counts them all", async () => {
    // Off-chain records: copies of 200 proofs under other uids (the columns both tables share, db/schema.ts).
    const shared = Object.values(getTableColumns(offchainRecords))
      .map((c) => c.name)
      .filter(
        (name) =>
          name in Object.fromEntries(Object.values(getTableColumns(locationProofs)).map((c) => [c.name, 1])),
      )
      .filter((name) => name !== "uid");
    const list = sql.raw(shared.map((n) => `"${n}"`).join(", "));
    await app.db.execute(sql`
      insert into offchain_records (uid, ${list}, offchain_version, domain_version, signed)
      select '0xff' || substr(uid, 5), ${list}, 2, '1.3.0', '{}' from location_proofs
       where longitude is not null order by uid limit 200`);
    const count = async (table: string) =>
      (
        await queryRows<{ n: number }>(
          app.db,
          sql`select count(*)::int as n from ${sql.identifier(table)} where longitude is not null`,
        )
      )[0]!.n;
    const [onchain, offchain] = [await count("location_proofs"), await count("offchain_records")];
    expect(offchain).toBe(200);
    // Every record matches, so each sampled cell's estimate is its candidates: the on-chain counts and the off-chain
    // rows of the cell, added up.
    const all = await tileContent(app.db, Z0, { ...OGC, source: "all" }, BUDGET);
    expect(all.kind).toBe("clusters");
    if (all.kind === "clusters") expect(all.total).toBe(onchain + offchain);
    const alone = await tileContent(app.db, Z0, { ...OGC, source: "offchain" }, BUDGET);
    expect(alone.kind === "clusters" ? alone.total : alone.points.length).toBe(offchain);
    expect(alone).toEqual(await tileContentFromRows(app.db, Z0, { ...OGC, source: "offchain" }));
  });
});
