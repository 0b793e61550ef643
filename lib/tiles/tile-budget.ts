import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { locationProofs as p } from "../../db/schema.js";
import { type ProofFilter, whereClause } from "../proofs/filter.js";
import { proofsFrom } from "../proofs/source.js";
import { clusterAt, clustersTile, type TileContent } from "./tile-clusters.js";
import { COUNTS_MAX_ZOOM, cellCounts } from "./tile-pyramid.js";
import { CLUSTER_GRID, CLUSTER_GRID_BITS, ROW_BUDGET } from "./tile-rules.js";

export { ROW_BUDGET };

import { TILE_KEY, tileCondition, tileKeyBetween, tileKeyRange, WX, WY } from "./tile-sql.js";
import type { TileAddress } from "./web-mercator.js";
import { WORLD_BITS } from "./web-mercator.js";

export type RowBudget = number;

/** The filters whose own index finds their proofs (prover, subject): few of them are read that way, in any tile. */
const selective = (f: ProofFilter): boolean => f.prover !== undefined || f.subject !== undefined;

/**
 * The tile's content for a filter the counts cannot answer, its cost bounded by `budget` proofs read, or undefined
 * where the tile is to be read from its rows (lib/tiles/tile-content.ts, tileContentFromRows), exactly:
 * - beyond COUNTS_MAX_ZOOM a tile is small enough to read (no counts there, and few proofs in so small an area);
 * - else the counts give the tile's proofs per cell (every proof, any filter: what the filter can at most match);
 *   up to `budget` of them, or up to `budget` matches of a prover's or a subject's own index, the rows are read and
 *   the tile is exact, as every tile of few proofs is;
 * - else each cell with proofs reads at most budget / 64 of them (the first in tile key order, one index range; never
 *   the first a scan of the table meets, which are its oldest) and
 *   tests the filter on them: a cell that holds no more is exact; a fuller one is estimated (the matches of the
 *   sample scaled to the cell's proofs) and its cluster says so (`approximate`), at the sample matches' mean
 *   position. A cell whose sample matched nothing is left out: the filter matches few of its proofs, if any.
 */
export async function sampledContent(
  db: Db,
  t: TileAddress,
  filter: ProofFilter,
  budget: RowBudget,
): Promise<TileContent | undefined> {
  // The off-chain records alone are read from their rows: the counts hold the on-chain proofs only.
  if (t.z > COUNTS_MAX_ZOOM || filter.source === "offchain") return undefined;
  const onchain = (await cellCounts(db, t, {})).filter((c) => c.n > 0);
  // Both sources: each cell's candidates are its on-chain proofs (the counts) and its off-chain records (their rows).
  const cells = filter.source === "all" ? withOffchain(onchain, await offchainCells(db, t)) : onchain;
  const candidates = cells.reduce((n, c) => n + c.n, 0);
  if (candidates <= budget) return undefined;
  if (selective(filter) && (await matchesAtMost(db, filter, budget))) return undefined;
  return sampledClusters(db, t, filter, cells, Math.max(1, Math.floor(budget / CLUSTER_GRID ** 2)));
}

/** Whether the filter matches at most `budget` proofs in the world, counted through its own index up to budget + 1. */
async function matchesAtMost(db: Db, filter: ProofFilter, budget: RowBudget): Promise<boolean> {
  const where = whereClause(filter);
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from (select 1 from ${proofsFrom(filter.source)} ${where ? sql`where ${where}` : sql``} limit ${sql.raw(String(budget + 1))}) s`,
  );
  return Number(row?.n ?? 0) <= budget;
}

type Cell = { gx: number; gy: number; n: number };

/** The off-chain records of a tile per cluster cell (the cells of level z + 3, as cellCounts names them). */
async function offchainCells(db: Db, t: TileAddress): Promise<Cell[]> {
  const shift = sql.raw(String(WORLD_BITS - t.z - CLUSTER_GRID_BITS));
  const rows = await queryRows<Cell>(
    db,
    sql`select (${WX} >> ${shift})::int as gx, (${WY} >> ${shift})::int as gy, count(*)::int as n
      from ${proofsFrom("offchain")} where ${tileCondition(t)} group by 1, 2`,
  );
  return rows.map((r) => ({ gx: Number(r.gx), gy: Number(r.gy), n: Number(r.n) }));
}

/** Cells of both sources, their candidates added up. */
function withOffchain(onchain: Cell[], offchain: Cell[]): Cell[] {
  const byCell = new Map(onchain.map((c) => [`${c.gx},${c.gy}`, { gx: c.gx, gy: c.gy, n: c.n }]));
  for (const c of offchain) {
    const key = `${c.gx},${c.gy}`;
    const held = byCell.get(key);
    if (held) held.n += c.n;
    else byCell.set(key, { ...c });
  }
  return [...byCell.values()];
}

type SampleRow = {
  gx: number;
  gy: number;
  read: number;
  n: number;
  sx: number;
  sy: number;
  uid: string | null;
};

/**
 * The clusters of a crowded tile from at most `perCell` proofs of each of its cells (`cells`, from the counts): one
 * statement, a range of the tile key's index per cell.
 */
async function sampledClusters(
  db: Db,
  t: TileAddress,
  filter: ProofFilter,
  cells: { gx: number; gy: number; n: number }[],
  perCell: number,
): Promise<TileContent> {
  const where = whereClause(filter);
  const matches: SQL = where ? sql`coalesce((${where}), false)` : sql`true`;
  // The counts name a cell by its column and row on the world's grid of level z + 3 (cellCounts); each cell's proofs
  // are one range of the tile key.
  const ranges = cells.map((c) => {
    const [first, last] = tileKeyRange({ z: t.z + CLUSTER_GRID_BITS, x: c.gx, y: c.gy });
    return `(${c.gx}, ${c.gy}, ${first}::int8, ${last}::int8)`;
  });
  // One subquery for every cell (a lateral join over the cells' key ranges), planned once: a subquery per cell made
  // the statement's planning as long as its execution. Each reads its cell's first proofs in the key's order, so that
  // the sample is the same whatever plan reads it: the first rows a scan of the table meets are its oldest (the sync
  // writes proofs in block order), and a time filter's estimate from them would be far off.
  const rows = await queryRows<SampleRow>(
    db,
    sql`select c.gx, c.gy, count(*)::int as read, count(*) filter (where s.m)::int as n,
        (sum(s.wx) filter (where s.m))::float8 as sx, (sum(s.wy) filter (where s.m))::float8 as sy,
        case when count(*) filter (where s.m) = 1 then min(s.uid) filter (where s.m) end as uid
      from (values ${sql.raw(ranges.join(", "))}) as c(gx, gy, lo, hi)
      cross join lateral (select ${WX} as wx, ${WY} as wy, ${p.uid} as uid, ${matches} as m
        from ${proofsFrom(filter.source)} where ${tileKeyBetween(sql`c.lo`, sql`c.hi`)}
        order by ${TILE_KEY} limit ${sql.raw(String(perCell))}) s
      group by c.gx, c.gy having count(*) filter (where s.m) > 0
      order by c.gy, c.gx`,
  );
  const inCell = new Map(cells.map((c) => [`${c.gx},${c.gy}`, c.n]));
  const clusters = rows.map((r) => {
    const proofs = inCell.get(`${r.gx},${r.gy}`) ?? 0;
    const n = Number(r.n);
    const exact = Number(r.read) >= proofs;
    return clusterAt(t, {
      mx: Number(r.sx) / n,
      my: Number(r.sy) / n,
      n: exact ? n : Math.max(1, Math.round((n * proofs) / Number(r.read))),
      uid: exact ? r.uid : null,
      approximate: !exact,
    });
  });
  return clustersTile(clusters);
}
