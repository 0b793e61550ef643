import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { PAGE_BYTES } from "../bounds/limits.js";
import { countParts, locatedFirst } from "./count.js";
import { decodeCursor } from "./cursor.js";
import { type ProofFilter, whereClause } from "./filter.js";
import type { RowJson } from "./json-sql.js";
import { type Cursor, type Order, orderSignature, type SortKey, type SortSpec, sortKeys } from "./sort.js";

/**
 * Up to this many matches, a page is cut from the matches themselves (found through the best index for the filter,
 * then sorted), instead of walking the order index until enough matches turn up, which for a selective filter
 * (a city-sized bbox among a million proofs) can mean visiting most of the table. The nearest-first order reads its
 * whole circle up to the same count (lib/proofs/nearest.ts), for the same reason.
 */
export const SMALL_RESULT = 5000;

/**
 * How many matches of a box or a circle a page still cuts from the matches themselves, for a table of `population`
 * proofs. Walking the order's index to fill a page visits about (limit + 1) × population / matches rows, reading
 * the matches visits each of them once: the walk pays only when the matches are more than about
 * √((limit + 1) × population) / 2. SMALL_RESULT is that at a million proofs and a page of 100 (where it was chosen);
 * a larger table, or a longer page, raises it: a city's few thousand matches among ten million proofs are read,
 * not sought through the whole order. Never below SMALL_RESULT; without a population, SMALL_RESULT.
 */
export function smallResult(limit: number, population: number | undefined): number {
  if (!population) return SMALL_RESULT;
  return Math.max(SMALL_RESULT, Math.round(Math.sqrt((limit + 1) * population) / 2));
}

/**
 * The proofs' table's size as PostgreSQL's statistics hold it (pg_class.reltuples, which ANALYZE and autovacuum
 * keep): per database handle, read again at most every ten minutes, by a page that takes its counts anyway (a
 * remembered page stays one statement). An estimate is enough: it only chooses between two plans of the same rows.
 */
const populations = new WeakMap<Db, { rows: number; at: number }>();
const POPULATION_MS = 600_000;

export const knownPopulation = (db: Db): number | undefined => populations.get(db)?.rows;

export async function refreshPopulation(db: Db): Promise<void> {
  const known = populations.get(db);
  if (known && Date.now() - known.at < POPULATION_MS) return;
  const [row] = await queryRows<{ rows: number | null }>(
    db,
    sql`select reltuples::float8 as rows from pg_class where oid = 'location_proofs'::regclass`,
  );
  // -1: never analysed (PostgreSQL 14 and later), 0 on older ones; neither is a size.
  const rows = Number(row?.rows ?? 0);
  populations.set(db, { rows: Math.max(rows, 0), at: Date.now() });
}

/** What a client asked of a page, as parsed (the cursor still a token). */
export type PageRequest = {
  limit: number;
  offset?: number;
  cursor?: string;
  sort?: SortSpec[];
  /**
   * Read each row as this JSON (lib/proofs/json-sql.ts), which in a proximity query carries the distance, with its
   * sort key beside it: rows are then JsonRows.
   */
  json?: RowJson;
  /**
   * The exact counts of the filter's parts (countParts), already known under a snapshot the caller accepts: a
   * download's later batches, which announced their number of rows with the first. No count is taken or checked.
   */
  counts?: number[];
  /**
   * With `json`: the most bytes of JSON the page's rows may hold (PAGE_BYTES unless told): the page ends before the
   * row that would pass it (lib/proofs/query.ts), and its next cursor goes on from there.
   */
  bytes?: number;
};

/**
 * A page planned once: the filter and its WHERE clause, its parts (located first, lib/proofs/count.ts), the order
 * (its keys and the signature a cursor carries) and where the page starts. Made by planPage and handed on: the
 * statements (lib/proofs/query.ts, pageAndCount; their ORDER BY and keyset ranges from the plan's keys, sort.ts) and
 * the cursors of the next/prev links (lib/params/paging.ts) read it, and none of them works any of it out again.
 */
export type PagePlan = {
  filter: ProofFilter;
  where: SQL | undefined;
  parts: ProofFilter[];
  order: Order;
  /** the order's total order: its sort keys, then the primary key (sortKeys) */
  keys: SortKey[];
  /** the order as a cursor names it (orderSignature) */
  signature: string;
  limit: number;
  offset?: number;
  cursor?: Cursor;
  json?: RowJson;
  counts?: number[];
  /** with `json`: PageRequest.bytes */
  bytes?: number;
};

/** A request that cannot be planned: the parameter to name in the 400, and why. */
export type PlanProblem = { parameter: string; problem: string };

/**
 * Plans a page: filter → order → cursor → WHERE, once. Which page: after or before a cursor (keyset paging: an
 * index seek whatever the depth), else `offset` rows in (read and discarded by the database: slower the deeper),
 * else the first page; a cursor and an offset together, or a cursor this order did not make, is a problem.
 */
export function planPage(filter: ProofFilter, q: PageRequest): PagePlan | PlanProblem {
  if (q.cursor !== undefined && q.offset !== undefined) {
    return {
      parameter: "cursor",
      problem: "cursor and offset cannot be combined: the cursor already names where the page starts",
    };
  }
  const order: Order = { sort: q.sort, located: locatedFirst(filter) };
  const keys = sortKeys(order.sort);
  const signature = orderSignature(order);
  let cursor: Cursor | undefined;
  if (q.cursor !== undefined) {
    const decoded = decodeCursor(q.cursor, order, keys, signature);
    if ("problem" in decoded) return { parameter: "cursor", problem: decoded.problem };
    cursor = decoded;
  }
  return {
    filter,
    where: whereClause(filter),
    parts: countParts(filter),
    order,
    keys,
    signature,
    limit: q.limit,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(cursor ? { cursor } : {}),
    ...(q.json ? { json: q.json, bytes: q.bytes ?? PAGE_BYTES } : {}),
    ...(q.counts ? { counts: q.counts } : {}),
  };
}
