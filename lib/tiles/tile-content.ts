import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { unindexed } from "../../db/index-steering.js";
import { locationProofs as p } from "../../db/schema.js";
import { type ProofFilter, whereClause } from "../proofs/filter.js";
import { proofProperty } from "../proofs/properties.js";
import { proofsFrom } from "../proofs/source.js";
import { renderedOnce } from "../proofs/sql-once.js";
import { ROW_BUDGET, type RowBudget, sampledContent } from "./tile-budget.js";
import {
  type ClusterRow,
  clusterAt,
  clustersTile,
  type TileCluster,
  type TileContent,
  type TilePoint,
} from "./tile-clusters.js";
import { cellCounts, countsAnswer } from "./tile-pyramid.js";
import { CLUSTER_GRID_BITS, MAX_POINTS, MEMO_CHARS, TILE_PROPERTY_NAMES } from "./tile-rules.js";
import { tileCondition, WX, WY } from "./tile-sql.js";
import { TILE_EXTENT_BITS, type TileAddress, WORLD_BITS } from "./web-mercator.js";

export type { ClusterRow, TileCluster, TileContent, TilePoint };
export { clusterAt, clustersTile };

const TILE_PROPERTIES = TILE_PROPERTY_NAMES.map((name) => {
  const q = proofProperty(name);
  if (!q) throw new Error(`tile property ${name} is not in the catalogue`);
  return q;
});

const propertyColumns: SQL = sql.join(
  TILE_PROPERTIES.map((q) =>
    q.name === "memo"
      ? sql`left(${q.source}, ${sql.raw(String(MEMO_CHARS))}) as ${sql.identifier(q.name)}`
      : sql`${q.source} as ${sql.identifier(q.name)}`,
  ),
  sql`, `,
);

/**
 * The filter of a tile: the request's (the items' filter, lib/ogc/items.ts), for the proofs whose point lies in the
 * tile, found by their tile key's index (lib/tiles/tile-sql.ts): one range scan at every zoom.
 */
export function tileFilter(filter: ProofFilter, t: TileAddress): ProofFilter {
  const { chains, ...rest } = filter;
  return {
    ...rest,
    where: [
      ...(filter.where ?? []),
      // The chain is tested on the tile's candidates, never through the chain's index: a chain holds a large share
      // of all proofs, and the planner, misjudging the spatial condition's few rows, otherwise ANDs in a bitmap of
      // every proof of the chain.
      ...(chains?.length ? [sql`${unindexed(p.chain)} in ${chains}`] : []),
      tileCondition(t),
    ],
  };
}

/**
 * The tile's content for the filter: its proofs, or their clusters; where the counts answer the filter
 * (lib/tiles/tile-pyramid.ts), the clusters come from them. Without a filter, the tile's first proofs, one more than a
 * points tile holds, say which it is: a points tile is then one statement, whose cost is bounded (every proof in the
 * tile's key range matches, so the scan stops at that many). With a chain, the counts say first: the proofs of a
 * chain may be few in a crowded tile, and the scan would pass all the others.
 */
export async function tileContent(
  db: Db,
  t: TileAddress,
  filter: ProofFilter,
  budget: RowBudget = ROW_BUDGET,
): Promise<TileContent> {
  if (!countsAnswer(filter, t))
    return (await sampledContent(db, t, filter, budget)) ?? tileContentFromRows(db, t, filter);
  if (!filter.chains?.length) {
    const points = await pointsOf(db, t, filter, MAX_POINTS + 1);
    if (points.length <= MAX_POINTS) return { kind: "points", points };
  }
  const cells = await cellCounts(db, t, filter);
  const total = cells.reduce((n, c) => n + c.n, 0);
  if (total <= MAX_POINTS) return { kind: "points", points: await pointsOf(db, t, filter, MAX_POINTS + 1) };
  return clustersTile(cells.map((c) => clusterAt(t, { mx: c.mx, my: c.my, n: c.n, uid: c.uid })));
}

/** The tile's content for the filter (its proofs, or their clusters), read from the proofs themselves. */
export async function tileContentFromRows(db: Db, t: TileAddress, filter: ProofFilter): Promise<TileContent> {
  const points = await pointsOf(db, t, filter, MAX_POINTS + 1);
  if (points.length <= MAX_POINTS) return { kind: "points", points };
  return clustersTile(await clustersFromRows(db, t, filter));
}

export const whereOf = (filter: ProofFilter, t: TileAddress): SQL => {
  const where = whereClause(tileFilter(filter, t));
  return where ? sql`where ${where}` : sql``;
};

type PointRow = { px: number; py: number } & Record<string, string | boolean | null>;

/**
 * The points statement of zoom z up to its WHERE clause: parameter-free, so rendered to SQL text once per zoom
 * (renderedOnce, lib/proofs/sql-once.ts); per request Drizzle renders only the conditions, which carry the values.
 */
const pointsHeads = new Map<string, SQL>();
function pointsHead(z: number, source: ProofFilter["source"]): SQL {
  const key = `${z}\u0000${source ?? ""}`;
  let head = pointsHeads.get(key);
  if (!head) {
    const shift = sql.raw(String(WORLD_BITS - z - TILE_EXTENT_BITS));
    head = renderedOnce(
      sql`select ((${WX} >> ${shift}) & 4095)::int4 as px, ((${WY} >> ${shift}) & 4095)::int4 as py, ${propertyColumns} from ${proofsFrom(source)} `,
    );
    pointsHeads.set(key, head);
  }
  return head;
}

/** The tile's proofs (up to `limit` of them), as points, in a stable order. */
async function pointsOf(db: Db, t: TileAddress, filter: ProofFilter, limit: number): Promise<TilePoint[]> {
  const rows = await queryRows<PointRow>(
    db,
    sql`${pointsHead(t.z, filter.source)}${whereOf(filter, t)} limit ${sql.raw(String(limit))}`,
  );
  const points = new Array<TilePoint>(rows.length);
  for (let i = 0; i < rows.length; i++) points[i] = toPoint(rows[i]!);
  return points.sort(byUid);
}

/** A row as a point: its properties in TILE_PROPERTY_NAMES' order, which is the order the tile writes them in. */
function toPoint(row: PointRow): TilePoint {
  const properties: TilePoint["properties"] = {};
  for (const name of TILE_PROPERTY_NAMES) properties[name] = row[name] ?? null;
  return { px: Number(row.px), py: Number(row.py), properties };
}

/** A stable order (uid, then chain: a uid may in principle recur on two chains), so a tile's bytes are stable. */
const byUid = (a: TilePoint, b: TilePoint): number => {
  const [ua, ub] = [a.properties.uid as string, b.properties.uid as string];
  if (ua !== ub) return ua < ub ? -1 : 1;
  const [ca, cb] = [a.properties.chain as string, b.properties.chain as string];
  return ca < cb ? -1 : ca > cb ? 1 : 0;
};

/** The clusters of a tile, grouped from its proofs in SQL (the world pixels' cell bits), row by row. */
async function clustersFromRows(db: Db, t: TileAddress, filter: ProofFilter): Promise<TileCluster[]> {
  const shift = sql.raw(String(WORLD_BITS - t.z - CLUSTER_GRID_BITS));
  const rows = await queryRows<ClusterRow>(
    db,
    sql`select (sx / n)::float8 as mx, (sy / n)::float8 as my, n::float8 as n, uid from (
        select w.wx >> ${shift} as gx, w.wy >> ${shift} as gy, count(*) as n, sum(w.wx) as sx, sum(w.wy) as sy,
          case when count(*) = 1 then min(w.uid) end as uid
        from (select ${WX} as wx, ${WY} as wy, ${p.uid} as uid from ${proofsFrom(filter.source)} ${whereOf(filter, t)}) w
        group by 1, 2) c
      order by gy, gx`,
  );
  return rows.map((r) => clusterAt(t, r));
}
