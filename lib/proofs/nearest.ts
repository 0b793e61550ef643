import { and, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { proofCellCounts as c, locationProofs as p } from "../../db/schema.js";
import { type ProofFilter, whereClause } from "./filter.js";
import { distanceSql, EARTH_RADIUS_M, type Near } from "./near.js";
import type { ProofRow, RowsQuery } from "./rows.js";
import type { Cursor } from "./sort.js";

/**
 * Pages of the nearest-first order (sort=distance): distance from the query's point, then uid, then chain id, all
 * ascending. No index holds that order (it depends on the point), so a page is read as the top of a circle's
 * matches, sorted: the circle's box through the bounds' GiST index, the exact distance test, a top-N sort.
 *
 * The matches within any radius r are exactly a prefix of the order, so a page read from the circle of radius r
 * that comes back full is the page. A page of a part of few matches reads the whole circle at once. One of many
 * matches (a wide radius) starts from a ring beyond the cursor's distance sized for the rows it needs by the density
 * of proofs in the centre's 1° cell (proof_cell_counts, one small statement), or, in an empty cell, by an eighth of
 * the width an even spread of the part's matches over its circle would need; it doubles the ring until the page is full or the ring is
 * the query's circle. The cost of a statement is its ring's rows (each read from the table to test its distance and
 * the other conditions): proofs crowd in cities, where a ring sized by the even spread would hold tens of thousands
 * to sort, and a ring that comes back short costs an index probe.
 *
 * A prev page reads the rows before its cursor: all within the cursor's distance, the last of them in the order.
 */

/** Up to this many matches in a part, its pages read the whole circle (as pageAndCount's SMALL_RESULT). */
const WHOLE_CIRCLE = 5000;

/** Without a density (an empty cell), the first ring's width as a fraction of what an even spread would need. */
const FIRST_RING = 1 / 8;
/** How much wider each next ring is. */
const WIDENING = 2;
/** The length of a degree of latitude on the sphere, in metres. */
const DEGREE_M = (EARTH_RADIUS_M * Math.PI) / 180;

/**
 * How many proofs the 1° cell of the circle's centre holds (every chain, revoked or not: proof_cell_counts, kept
 * by triggers), for the density that sizes the first ring.
 */
export async function centreCellCount(db: Db, near: Near): Promise<number> {
  const [row] = await queryRows<{ n: number | string | null }>(
    db,
    sql`select sum(${c.n}) as n from ${c} where ${c.cellLon} = ${Math.min(179, Math.floor(near.lon))} and ${c.cellLat} = ${Math.min(89, Math.floor(near.lat))}`,
  );
  return Number(row?.n ?? 0);
}

export type NearestRead = {
  near: Near;
  /** the part of the filter read (lib/proofs/query.ts, countParts); near is among its conditions */
  part: ProofFilter;
  /** the part's number of matches */
  count: number;
  /** where the page continues from, within this part */
  cursor?: Cursor | undefined;
  backward: boolean;
  limit: number;
  offset?: number | undefined;
  /** the number of proofs in the centre's 1° cell (centreCellCount), asked only for a part of many matches */
  cellCount: () => Promise<number>;
};

/** The order's ORDER BY in either direction (the distance is the statement's "distance" column). */
const FORWARD = [sql`"distance" asc, ${p.uid} asc, ${p.chainId} asc`];
const BACKWARD = [sql`"distance" desc, ${p.uid} desc, ${p.chainId} desc`];

/** Rows strictly after (or `before`) the cursor's key in the order: a row comparison, every key not null. */
function beyond(near: Near, cursor: Cursor, before: boolean): SQL {
  const [d, uid, chainId] = cursor.values;
  const row = sql`(${distanceSql(near)}, ${p.uid}, ${p.chainId})`;
  const at = sql`(${d}::float8, ${uid}::text, ${chainId}::bigint)`;
  return before ? sql`${row} < ${at}` : sql`${row} > ${at}`;
}

/** The part's condition with the circle narrowed to `radius` (never wider than the query's). */
const within = (r: NearestRead, radius: number): SQL | undefined =>
  whereClause({ ...r.part, near: { ...r.near, radius: Math.max(0, Math.min(radius, r.near.radius)) } });

/** A page (or its part in one part of the order) in the nearest-first order, as fetch reads it. */
export async function readNearest(
  r: NearestRead,
  fetch: (q: RowsQuery) => Promise<ProofRow[]>,
): Promise<ProofRow[]> {
  const distance = distanceSql(r.near);
  const d0 = r.cursor ? Number(r.cursor.values[0]) : 0;
  if (r.backward) {
    // Everything before the cursor lies within its distance; without a cursor, the part's end: the whole circle.
    return fetch({
      where: r.cursor ? and(within(r, d0), beyond(r.near, r.cursor, true)) : whereClause(r.part),
      orderBy: BACKWARD,
      limit: r.limit,
      distance,
    });
  }
  const position = r.cursor ? beyond(r.near, r.cursor, false) : undefined;
  const needed = r.limit + (r.offset ?? 0);
  const radius = r.near.radius;
  let ring = radius;
  if (r.count > WHOLE_CIRCLE) {
    // The area that holds the rows needed at the centre cell's density (its area: a degree of longitude shrinks
    // with the cosine of the latitude), else a fraction of the even spread's over the whole circle.
    const cell = await r.cellCount();
    const cellArea =
      DEGREE_M * DEGREE_M * Math.max(0.01, Math.cos(((Math.floor(r.near.lat) + 0.5) * Math.PI) / 180));
    const area =
      cell > 0
        ? (needed * cellArea) / cell
        : Math.min(1, needed / r.count) * Math.PI * radius * radius * FIRST_RING ** 2;
    ring = Math.min(radius, Math.max(d0 + 1, Math.sqrt(d0 * d0 + area / Math.PI)));
  }
  for (;;) {
    const rows = await fetch({
      where: and(ring >= radius ? whereClause(r.part) : within(r, ring), position),
      orderBy: FORWARD,
      limit: r.limit,
      ...(r.offset ? { offset: r.offset } : {}),
      distance,
    });
    if (rows.length >= r.limit || ring >= radius) return rows;
    ring = Math.min(radius, d0 + WIDENING * (ring - d0));
  }
}
