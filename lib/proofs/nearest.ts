import { and, type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import { type ProofFilter, whereClause } from "./filter.js";
import { distanceSql, type Near } from "./near.js";
import type { ProofRow, RowsQuery } from "./rows.js";
import type { Cursor } from "./sort.js";

/**
 * Pages of the nearest-first order (sort=distance): distance from the query's point, then uid, then chain id, all
 * ascending. No index holds that order (it depends on the point), so a page is read as the top of a circle's
 * matches, sorted: the circle's box through the bounds' GiST index, the exact distance test, a top-N sort.
 *
 * The matches within any radius r are exactly a prefix of the order, so a page read from the circle of radius r
 * that comes back full is the page. A page of a part of few matches reads the whole circle at once. One of many
 * matches (a wide radius) starts from a thin ring beyond the cursor's distance, a fraction of what an even spread
 * of the part's matches over its circle would need for the page (proofs crowd in cities, where a ring that wide
 * would hold tens of thousands to sort), and widens it fourfold until the page is full or the circle is the
 * query's own: each statement finds its rows through the GiST index and sorts a few pages' worth at most, and a
 * ring that comes back short costs an index probe.
 *
 * A prev page reads the rows before its cursor: all within the cursor's distance, the last of them in the order.
 */

/** Up to this many matches in a part, its pages read the whole circle (as pageAndCount's SMALL_RESULT). */
const WHOLE_CIRCLE = 5000;

/** The first ring's width as a fraction of the width an even spread would need (see above). */
const FIRST_RING = 1 / 64;
/** How much wider each next ring is. */
const WIDENING = 4;

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
  // The width beyond the cursor's distance that would hold the rows needed were the part's matches spread evenly
  // over its circle's area, times FIRST_RING.
  const even = Math.sqrt(d0 * d0 + Math.min(1, needed / r.count) * radius * radius) - d0;
  let ring = r.count <= WHOLE_CIRCLE ? radius : Math.min(radius, d0 + Math.max(1, even * FIRST_RING));
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
