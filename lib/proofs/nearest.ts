import { and, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { proofCellCounts as c, locationProofs as p } from "../../db/schema.js";
import { type ProofFilter, whereClause } from "./filter.js";
import { distanceSql, EARTH_RADIUS_M, type Near } from "./near.js";
import { SMALL_RESULT } from "./plan.js";
import type { ProofRow, RowsQuery } from "./rows.js";
import type { Cursor } from "./sort.js";

/**
 * Pages of the nearest-first order (sort=distance): distance from the query's point, then uid, then chain id, all
 * ascending. No index holds that order (it depends on the point), so a page is read as the top of a circle's
 * matches, sorted: the circle's box through the bounds' GiST index, the exact distance test, a top-N sort.
 *
 * The matches within any radius r are exactly a prefix of the order, so a page read from the circle of radius r
 * that comes back full is the page. A page of a part of few matches reads the whole circle at once. One of many
 * matches (a wide radius) first sizes a ring by the densities of proofs in the 1° cells around the centre
 * (proof_cell_counts, one small statement: firstRing), then widens it geometrically until the page is full or the
 * ring is the query's circle, which the MAX_RINGS-th ring always is. The cost of a statement is its ring's rows (each read from the table to test its distance and
 * the other conditions): proofs crowd in cities, where a ring sized by an even spread over the sphere would hold
 * many thousands to sort, and between them, where rings grown from nothing would take many statements.
 *
 * A prev page reads the rows before its cursor: all within the cursor's distance, the last of them in the order.
 */

/** How much wider each next ring is, at least. */
const WIDENING = 2;
/**
 * The most statements one part of a page reads: the rings grow geometrically, fast enough that the last one is the
 * query's whole circle. A cursor a client wrote by hand (any distance, any position: it grants nothing, so nothing
 * stops it) therefore costs at most this many statements, however empty the space around it.
 */
export const MAX_RINGS = 4;
/** The length of a degree of latitude on the sphere, in metres. */
const DEGREE_M = (EARTH_RADIUS_M * Math.PI) / 180;
/** The cells read around the centre's: this many on each side (a square of 9 × 9 cells). */
const WINDOW = 4;
/** How many times the rows a page needs the first ring is sized for (densities are averages over a cell). */
const HEADROOM = 1.5;

/** A 1° cell of proof_cell_counts (west and south edges in whole degrees) and how many proofs it holds. */
export type Cell = { lon: number; lat: number; n: number };

/**
 * The cells around the circle's centre (WINDOW on each side, across the antimeridian too) and how many proofs each
 * holds, every chain, revoked or not (proof_cell_counts, kept by triggers): the densities that size the first ring.
 * One small statement through the table's cell index.
 */
export async function cellsAround(db: Db, near: Near): Promise<Cell[]> {
  const lon0 = Math.min(179, Math.floor(near.lon));
  const lat0 = Math.min(89, Math.floor(near.lat));
  const [west, east] = [lon0 - WINDOW, lon0 + WINDOW];
  const lons =
    west < -180
      ? sql`(${c.cellLon} >= ${west + 360} or ${c.cellLon} <= ${east})`
      : east > 179
        ? sql`(${c.cellLon} >= ${west} or ${c.cellLon} <= ${east - 360})`
        : sql`${c.cellLon} between ${west} and ${east}`;
  const rows = await queryRows<{ lon: number; lat: number; n: number | string }>(
    db,
    sql`select ${c.cellLon} as lon, ${c.cellLat} as lat, sum(${c.n}) as n from ${c} where ${lons} and ${c.cellLat} between ${lat0 - WINDOW} and ${lat0 + WINDOW} group by 1, 2`,
  );
  return rows.map((r) => ({ lon: Number(r.lon), lat: Number(r.lat), n: Number(r.n) }));
}

/** The great-circle distance in metres between two points in degrees, for estimates only (haversine). */
function roughDistance(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The radius of the first ring, expected to hold HEADROOM times `target` proofs (the rows before the page and the
 * page's). Where the centre's cell holds that many, from its density (its area: a degree of longitude shrinks with
 * the cosine of the latitude), as if the proofs were spread evenly over it; else the distance to the centre of the
 * cell at which the nearest cells of the window add up to that many; else the window's reach.
 */
function firstRing(near: Near, cells: readonly Cell[], target: number): number {
  const want = HEADROOM * target;
  const lon0 = Math.min(179, Math.floor(near.lon));
  const lat0 = Math.min(89, Math.floor(near.lat));
  const home = cells.find((x) => x.lon === lon0 && x.lat === lat0)?.n ?? 0;
  if (home >= want) {
    const area = DEGREE_M * DEGREE_M * Math.max(0.01, Math.cos(((lat0 + 0.5) * Math.PI) / 180));
    return Math.sqrt((want * area) / home / Math.PI);
  }
  const byDistance = cells
    .map((x) => ({ d: roughDistance(near.lon, near.lat, x.lon + 0.5, x.lat + 0.5), n: x.n }))
    .sort((a, b) => a.d - b.d);
  let sum = 0;
  for (const x of byDistance) {
    sum += x.n;
    if (sum >= want) return x.d;
  }
  return WINDOW * DEGREE_M;
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
  /** the cells around the centre (cellsAround), asked only for a part of many matches */
  cells: () => Promise<Cell[]>;
  /** whether the page's byte budget ended it (lib/proofs/query.ts): the rows read are then the page, no wider ring */
  stopped?: () => boolean;
};

/** The order's ORDER BY in either direction (the distance is the statement's "distance" column). */
const FORWARD = [sql`"distance" asc, ${p.uid} asc, ${p.chainId} asc`];
const BACKWARD = [sql`"distance" desc, ${p.uid} desc, ${p.chainId} desc`];

/** Rows strictly after (or `before`) the cursor's key in the order: a row comparison, every key not null. */
function pastDistance(near: Near, cursor: Cursor, before: boolean): SQL {
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
      where: r.cursor ? and(within(r, d0), pastDistance(r.near, r.cursor, true)) : whereClause(r.part),
      orderBy: BACKWARD,
      limit: r.limit,
      distance,
    });
  }
  const position = r.cursor ? pastDistance(r.near, r.cursor, false) : undefined;
  const needed = r.limit + (r.offset ?? 0);
  const radius = r.near.radius;
  let ring = radius;
  if (r.count > SMALL_RESULT) ring = Math.min(radius, await firstRadius(r, d0, needed));
  // Each next ring is `factor` times as wide beyond the cursor, so the MAX_RINGS-th is the whole circle.
  const factor = Math.max(WIDENING, ((radius - d0) / Math.max(1, ring - d0)) ** (1 / (MAX_RINGS - 1)));
  for (let rings = 1; ; rings++) {
    const rows = await fetch({
      where: and(ring >= radius ? whereClause(r.part) : within(r, ring), position),
      orderBy: FORWARD,
      limit: r.limit,
      ...(r.offset ? { offset: r.offset } : {}),
      distance,
    });
    if (rows.length >= r.limit || ring >= radius || r.stopped?.()) return rows;
    ring = rings + 1 >= MAX_RINGS ? radius : Math.min(radius, d0 + factor * (ring - d0));
  }
}

/**
 * The first ring's radius. Without a cursor: sized from the cells around the centre (firstRing). After a cursor at
 * distance d0 that says `position` matches lie within it: the ring beyond d0 that holds HEADROOM times the rows the
 * page needs at that same density (the disc's area grows as the square of its radius); a cursor from the centre's
 * cells (d0 within the window's reach) takes the larger of both. Either is an estimate (a hand-written position is
 * anything): the rings after it grow until the circle is read whole.
 */
async function firstRadius(r: NearestRead, d0: number, needed: number): Promise<number> {
  const position = r.cursor?.position ?? 0;
  const fromCells = () => r.cells().then((cells) => firstRing(r.near, cells, position + needed));
  if (!r.cursor || d0 <= 0) return Math.max(1, await fromCells());
  const byPosition = d0 * Math.sqrt(1 + (HEADROOM * needed) / Math.max(1, position));
  const near = d0 < WINDOW * DEGREE_M ? await fromCells() : 0;
  return Math.max(d0 + 1, byPosition, near);
}
