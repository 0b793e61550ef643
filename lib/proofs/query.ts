import { and, asc, count, eq, type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { type Db, queryRows } from "../../db/client.js";
import { databaseErrorOf } from "../../db/errors.js";
import { locationProofs as p } from "../../db/schema.js";
import { fewCells } from "./cell-totals.js";
import { coversWorld, type IndexUse, type ProofFilter, whereClause } from "./filter.js";
import { coversSphere, distanceSql } from "./near.js";
import { cellsAround, readNearest } from "./nearest.js";
import { type ProofRow, type RowsQuery, SNAPSHOT_TEXT, selectProofJson, selectProofs } from "./rows.js";
import {
  type Cursor,
  isDistanceSort,
  keysetSegments,
  type Located,
  orderBy,
  type Segment,
  type SortSpec,
  sortKeys,
} from "./sort.js";
import { countFromTotals } from "./totals.js";

/**
 * Which page: after or before a cursor (keyset paging: an index seek whatever the depth), else `offset` rows in
 * (read and discarded by the database: slower the deeper), else the first page.
 */
export type Page = {
  limit: number;
  offset?: number;
  cursor?: Cursor;
  sort?: SortSpec[];
  /** Read each row as this JSON (lib/proofs/json-sql.ts) with its sort key beside it: rows are then JsonRows. */
  json?: SQL;
};

export type PageResult = {
  /** in the page's order, whichever direction the page was read */
  rows: ProofRow[];
  /** each row's part (countParts: located first), which a cursor made from the row names */
  parts: number[];
  total: number;
  /**
   * Whether more matches lie beyond the page in the direction it was read: after it (first, offset and `next`
   * pages), before it (`prev` pages).
   */
  more: boolean;
};

/** How many proofs match the filter (the same WHERE clause as the page). */
export async function countProofs(db: Db, filter: ProofFilter, where = whereClause(filter)): Promise<number> {
  const [row] = await db.select({ n: count() }).from(p).where(where);
  return Number(row?.n ?? 0);
}

/**
 * Up to this many matches, a page is cut from the matches themselves (found through the best index for the filter,
 * then sorted), instead of walking the order index until enough matches turn up, which for a selective filter
 * (a city-sized bbox among a million proofs) can mean visiting most of the table.
 */
const SMALL_RESULT = 5000;

/**
 * Exact counts, remembered while the database provably has not changed.
 *
 * An exact COUNT over a million proofs costs ~100 ms whatever the index (it visits every matching entry), and a client
 * paging through a large result asks for the same count on every page. The key is the MVCC snapshot
 * (`pg_current_snapshot()`: xmin, xmax and the transactions in progress) read before the count's statements. Every
 * writing transaction changes the snapshot — it takes a transaction id (xmax moves) and is listed as in progress
 * until it ends — so a commit that becomes visible after a snapshot was read changes every later snapshot, for good.
 * Hence a count taken after reading snapshot S is exactly the count under S whenever a later statement reads S
 * again: no commit can have become visible in between, before, during or after the count's own statements (however
 * many parts and totals it adds up). (A WAL position is not such a key: a commit's WAL record is written before the
 * commit becomes visible, and nothing need be written after it.) Unrelated writes also change the snapshot: that
 * costs a recount, never a wrong answer. Asked for directly, a remembered count costs one statement, the snapshot,
 * whatever the filter; beside a page it costs none (pageAndCount reads the snapshot in the page's own statement).
 * Where the snapshot cannot be read, nothing is remembered. The cache is per process and per database handle, and
 * bounded.
 */
/** SQLSTATE 42883 undefined_function: what PostgreSQL before 13 answers to pg_current_snapshot(). */
const isUndefinedFunction = (error: unknown) => databaseErrorOf(error)?.code === "42883";

const SNAPSHOT = sql`select ${SNAPSHOT_TEXT} as snapshot`;

export function createCountCache(maxEntries = 500) {
  const byDb = new WeakMap<Db, Map<string, { snapshot: string; parts: number[] }>>();
  const dialect = new PgDialect();
  let snapshotUnavailable = false;

  async function currentSnapshot(db: Db): Promise<string | undefined> {
    if (snapshotUnavailable) return undefined;
    try {
      const [row] = await queryRows<{ snapshot: string }>(db, SNAPSHOT);
      return row?.snapshot;
    } catch (error) {
      // Only a server without the function (PostgreSQL before 13) turns the cache off; an outage is the caller's.
      if (!isUndefinedFunction(error)) throw error;
      snapshotUnavailable = true;
      return undefined;
    }
  }

  /**
   * The filter's identity: its own fields (dates as ISO text), or, when it holds SQL (a CQL2 condition), the
   * compiled WHERE clause. Two keys differ whenever the filters could match differently.
   */
  const keyOf = (filter: ProofFilter, where: SQL | undefined) => {
    if (!filter.where?.length) return JSON.stringify(filter);
    const compiled = where ? dialect.sqlToQuery(where) : { sql: "", params: [] };
    return `${compiled.sql}\u0000${JSON.stringify(compiled.params)}`;
  };

  /**
   * The exact count of each of the filter's parts (countParts), in their order. `read`: a snapshot the caller read
   * in a statement of its own just before (a page's, RowsQuery.snapshot). Any snapshot read before the count's
   * statements is a valid key, so this one spares a statement.
   */
  async function partCounts(
    db: Db,
    filter: ProofFilter,
    where = whereClause(filter),
    read?: string,
  ): Promise<number[]> {
    const snapshot = read ?? (await currentSnapshot(db));
    if (snapshot === undefined) return countMatches(db, filter, where);
    const key = keyOf(filter, where);
    let entries = byDb.get(db);
    if (!entries) {
      entries = new Map();
      byDb.set(db, entries);
    }
    const hit = entries.get(key);
    if (hit?.snapshot === snapshot) return hit.parts;
    const parts = await countMatches(db, filter, where);
    entries.delete(key);
    entries.set(key, { snapshot, parts });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return parts;
  }

  /** The exact number of matches (the parts' counts added up), remembered as partCounts are. */
  const cachedCount = async (db: Db, filter: ProofFilter, where = whereClause(filter), read?: string) =>
    sum(await partCounts(db, filter, where, read));

  /**
   * The counts last taken for the filter and the snapshot they hold under, without asking the database: a caller
   * that reads the snapshot in a statement of its own (a page, RowsQuery.snapshot) and finds it identical has the
   * exact counts without a statement for them. Only a server with pg_current_snapshot() has remembered counts.
   */
  const remembered = (db: Db, filter: ProofFilter, where = whereClause(filter)) =>
    byDb.get(db)?.get(keyOf(filter, where));

  return Object.assign(cachedCount, { remembered, parts: partCounts });
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

const exactCount = createCountCache();

/**
 * What the OGC items put first when a bbox or a datetime is given: the features that have a geometry (bbox), an
 * event time (datetime), or both, in that order of importance. Under the standard's rule (Part 1,
 * /req/core/fc-bbox-response C, /req/core/fc-time-response C) a bbox also matches every feature without geometry
 * and a datetime every feature without an event time; read in the plain order, a map client paging a city's box
 * got pages of features it cannot place before the city's own. `numberMatched` stays the standard's count.
 * Empty for every other filter (the native API's rule never matches a proof without the value tested).
 */
export function locatedFirst(f: ProofFilter): Located {
  const located: ("geometry" | "time")[] = [];
  if (f.bboxMatchesMissing && f.bbox && f.hasCoordinates === undefined) located.push("geometry");
  if (f.timesMatchMissing && f.times?.length && f.hasEventTime === undefined) located.push("time");
  return located;
}

/**
 * The disjoint parts of a filter, in the order a page reads them (locatedFirst): for a bbox, the features in the
 * box, then those without geometry; for a datetime, those in the interval, then those without an event time; for
 * both, geometry first: (in the box and the interval), (in the box, no time), (no geometry, in the interval),
 * (neither). Each part is an index range (the box's GiST condition, the interval's range, a partial index on the
 * proofs without geometry), and their counts add up to the filter's: one count of the OR would visit every proof
 * without geometry (5% of a million) again after each write; the parts without geometry come from proof_counts
 * where the other conditions allow (chain, revoked), or from a small partial index (db/schema.ts). A filter with
 * nothing located first is its own one part.
 */
export function countParts(f: ProofFilter): ProofFilter[] {
  let parts = [f];
  for (const dimension of locatedFirst(f)) {
    parts = parts.flatMap((q): ProofFilter[] =>
      dimension === "geometry"
        ? [
            { ...q, bboxMatchesMissing: false },
            { ...q, bbox: undefined, bboxMatchesMissing: false, hasCoordinates: false },
          ]
        : [
            { ...q, timesMatchMissing: false },
            { ...q, times: undefined, timesMatchMissing: false, hasEventTime: false },
          ],
    );
  }
  return parts;
}

/**
 * The exact number of matches of each part (countParts), not remembered: each from the totals the database keeps
 * (lib/proofs/totals.ts) where they answer it, else from the rows.
 */
async function countMatches(db: Db, filter: ProofFilter, where: SQL | undefined): Promise<number[]> {
  const parts = countParts(filter);
  const rows = (f: ProofFilter) => countProofs(db, f, f === filter ? where : whereClause(f));
  const counts: number[] = [];
  for (const part of parts) counts.push((await countFromTotals(db, part, rows)) ?? (await rows(part)));
  return counts;
}

/**
 * A page and the exact number of matches, for the native list and the OGC items. The page's order is its parts'
 * (countParts: located first), each in the sort's order. The counts decide the plan: nothing to fetch when there
 * is no match; filter-then-sort within a part whose matches are few; the order index within one whose matches are
 * many, where it meets `limit` matches within a few index pages. One row more than the page is read, to know
 * whether another page follows.
 *
 * A keyset page (first, next, prev) reads each part as index ranges from its cursor (keysetSegments) until the
 * page is full. An offset page finds its part from the parts' counts and reads the sort keys alone up to the offset
 * (RowsQuery.keysFirst): the rows it skips are never built.
 *
 * A count remembered from an earlier request (createCountCache) plans the page, and the page's own statement reads
 * the snapshot that proves it still exact: one statement for the request instead of two. When the snapshot moved
 * (a write since), the count is taken again and remembered under the page's snapshot; the rows stay (a commit
 * between the page and its recount shows in the count only, as it would between two requests).
 */
export async function pageAndCount(db: Db, filter: ProofFilter, page: Page): Promise<PageResult> {
  const where = whereClause(filter);
  const remembered = exactCount.remembered(db, filter, where);
  const rememberedTotal = remembered ? sum(remembered.parts) : 0;
  // An empty result, or an offset past the end, is answered by the count alone: it is checked first.
  const checkedByPage =
    remembered !== undefined &&
    rememberedTotal > 0 &&
    !(!page.cursor && page.offset && page.offset >= rememberedTotal);
  let counts = checkedByPage ? remembered.parts : await exactCount.parts(db, filter, where);
  let total = sum(counts);
  const none = { rows: [], parts: [], total, more: false };
  if (total === 0) return none;
  if (!page.cursor && page.offset && page.offset >= total) return none;
  const parts = countParts(filter);
  // (Parts of a located-first order always hold a condition: the box, the interval, or their absence.)
  const selective = (part: number) =>
    counts[part]! <= SMALL_RESULT && (parts.length > 1 || where !== undefined);
  const wheres = parts.map((part, i) => {
    const use = indexUse(part, selective(i));
    return parts.length === 1 && use.bbox !== false && use.times !== false && use.near !== false
      ? where
      : whereClause(part, use);
  });
  const wanted = page.limit + 1;
  const json = page.json;
  const keys = json ? sortKeys(page.sort).map((k) => k.column) : [];
  // The snapshot comes with the first statement that returns a row (an empty one carries none).
  let snapshot: string | undefined;
  const rows: ProofRow[] = [];
  const rowParts: number[] = [];
  // A proximity filter: every row carries its distance from the point.
  const distance = filter.near ? distanceSql(filter.near) : undefined;
  const fetch = async (q: RowsQuery) => {
    const withSnapshot = { ...q, distance, snapshot: checkedByPage && snapshot === undefined };
    const result = await (json
      ? selectProofJson(db, withSnapshot, json, keys)
      : selectProofs(db, withSnapshot));
    snapshot ??= result.snapshot;
    return result.rows;
  };
  const keep = (part: number, read: ProofRow[]) => {
    for (const row of read) {
      rows.push(row);
      rowParts.push(part);
    }
  };
  const read = async (part: number, q: RowsQuery) => keep(part, await fetch(q));
  if (filter.near && isDistanceSort(page.sort)) {
    // The nearest-first order (lib/proofs/nearest.ts): each part from the cursor's (or the offset's) on.
    const near = filter.near;
    const cursor = page.cursor;
    const backward = cursor?.direction === "prev";
    let part = cursor?.part ?? (backward ? parts.length - 1 : 0);
    let skip = !cursor && page.offset ? page.offset : 0;
    while (skip && skip >= counts[part]!) skip -= counts[part++]!;
    const from = part;
    for (; part >= 0 && part < parts.length && rows.length < wanted; part += backward ? -1 : 1, skip = 0) {
      if (counts[part] === 0) continue;
      const found = await readNearest(
        {
          near,
          part: parts[part]!,
          count: counts[part]!,
          cursor: part === from ? cursor : undefined,
          backward,
          limit: wanted - rows.length,
          offset: skip,
          cells: () => cellsAround(db, near),
        },
        fetch,
      );
      keep(part, found);
    }
  } else if (!page.cursor && page.offset) {
    // The part the offset falls in, and the offset within it; the page continues into the parts after it.
    let skip = page.offset;
    let part = 0;
    while (skip >= counts[part]!) skip -= counts[part++]!;
    for (; part < parts.length && rows.length < wanted; part++, skip = 0) {
      const avoidIndex = selective(part);
      await read(part, {
        where: wheres[part],
        orderBy: orderBy(page.sort, { avoidIndex }),
        limit: wanted - rows.length,
        ...(skip ? { offset: skip, keysFirst: true } : {}),
      });
    }
  } else {
    const cursor = page.cursor;
    const backward = cursor?.direction === "prev";
    const from = cursor?.part ?? (backward ? parts.length - 1 : 0);
    for (
      let part = from;
      part >= 0 && part < parts.length && rows.length < wanted;
      part += backward ? -1 : 1
    ) {
      const segments = keysetSegments(page.sort, part === from ? cursor : undefined, {
        avoidIndex: selective(part),
        backward,
      }).filter((segment) => holdsFirstKey(parts[part]!, segment));
      for (const segment of segments) {
        if (rows.length >= wanted) break;
        await read(part, {
          where: and(wheres[part], segment.where),
          orderBy: segment.orderBy,
          limit: wanted - rows.length,
        });
      }
    }
  }
  // Keyed by the page's snapshot: it was read before the recount's statements.
  if (checkedByPage && snapshot !== remembered.snapshot) {
    counts = await exactCount.parts(db, filter, where, snapshot);
    total = sum(counts);
  }
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  const keptParts = rowParts.slice(0, page.limit);
  // A prev page was read backwards from its cursor.
  if (page.cursor?.direction === "prev") {
    kept.reverse();
    keptParts.reverse();
  }
  return { rows: kept, parts: keptParts, total, more };
}

/**
 * Which conditions of a part a page's statement reads through an index (IndexUse). A part of many matches: not its
 * box (walking the order's index meets its matches within a few pages; through the GiST index the planner, trusting
 * a flat estimate, would fetch and sort a continent's). A part of few matches with a small box (fewCells): the box's
 * GiST index, the interval only a filter (else the planner ANDs the box's few entries with the interval's whole range
 * of the order index). A part of few matches with a large box and an interval, a prover or a subject: their index,
 * the box only a filter (its GiST scan would read the whole region). Otherwise the planner chooses.
 */
function indexUse(part: ProofFilter, selective: boolean): IndexUse {
  // A circle is read through the bounds' GiST index when its matches are few, else only tested (as a large box).
  const near = part.near && !coversSphere(part.near) && !selective ? { near: false } : {};
  const b = part.bbox;
  if (!b || coversWorld(b) || part.bboxMatchesMissing) return near;
  if (!selective) return { ...near, bbox: false };
  if (fewCells(b)) return { times: false };
  return part.times?.length || part.prover !== undefined || part.subject !== undefined ? { bbox: false } : {};
}

/**
 * Whether a part can hold rows in a keyset segment: a part that tests the first sort key's value (in the interval,
 * in the box) holds no row without it, and a part of the proofs without it none with it. Such a segment is not
 * read at all (a statement saved per page).
 */
function holdsFirstKey(part: ProofFilter, segment: Segment): boolean {
  const field = segment.part?.field;
  const tested =
    field === "event_timestamp"
      ? {
          has: Boolean(part.times?.length && !part.timesMatchMissing) || part.hasEventTime === true,
          lacks: part.hasEventTime === false,
        }
      : field === "longitude" || field === "latitude"
        ? {
            has: Boolean(part.bbox && !part.bboxMatchesMissing) || part.hasCoordinates === true,
            lacks: part.hasCoordinates === false,
          }
        : undefined;
  if (!tested) return true;
  return segment.part!.nulls ? !tested.has : !tested.lacks;
}

/**
 * One proof by uid, revoked or not. A uid is unique per chain; should two chains ever hold the same uid, the one of
 * the lowest chain id is returned (deterministically).
 */
export async function findProofByUid(db: Db, uid: string): Promise<ProofRow | undefined> {
  const { rows } = await selectProofs(db, { where: eq(p.uid, uid), orderBy: [asc(p.chainId)], limit: 1 });
  return rows[0];
}

/**
 * How many proofs match the filter, exactly: the count a page carries (from the totals where they answer it, and
 * remembered while the snapshot holds: createCountCache), for a reader that wants the count alone (GraphQL's
 * locationProofsCount).
 */
export const countMatching = (db: Db, filter: ProofFilter): Promise<number> => exactCount(db, filter);
