import { and, asc, count, eq, type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { type Db, queryRows } from "../../db/client.js";
import { databaseErrorOf } from "../../db/errors.js";
import { locationProofs as p } from "../../db/schema.js";
import { coversWorld, type ProofFilter, whereClause } from "./filter.js";
import { type ProofRow, type RowsQuery, SNAPSHOT_TEXT, selectProofJson, selectProofs } from "./rows.js";
import { type Cursor, keysetSegments, orderBy, type Segment, type SortSpec, sortKeys } from "./sort.js";
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
  /** in the sort's order, whichever direction the page was read */
  rows: ProofRow[];
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
  const byDb = new WeakMap<Db, Map<string, { snapshot: string; n: number }>>();
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
   * `read`: a snapshot the caller read in a statement of its own just before (a page's, RowsQuery.snapshot). Any
   * snapshot read before the count's statements is a valid key, so this one spares a statement.
   */
  async function cachedCount(
    db: Db,
    filter: ProofFilter,
    where = whereClause(filter),
    read?: string,
  ): Promise<number> {
    const snapshot = read ?? (await currentSnapshot(db));
    if (snapshot === undefined) return countMatches(db, filter, where);
    const key = keyOf(filter, where);
    let entries = byDb.get(db);
    if (!entries) {
      entries = new Map();
      byDb.set(db, entries);
    }
    const hit = entries.get(key);
    if (hit?.snapshot === snapshot) return hit.n;
    const n = await countMatches(db, filter, where);
    entries.delete(key);
    entries.set(key, { snapshot, n });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return n;
  }

  /**
   * The count last taken for the filter and the snapshot it holds under, without asking the database: a caller
   * that reads the snapshot in a statement of its own (a page, RowsQuery.snapshot) and finds it identical has the
   * exact count without a statement for it. Only a server with pg_current_snapshot() has remembered counts.
   */
  const remembered = (db: Db, filter: ProofFilter, where = whereClause(filter)) =>
    byDb.get(db)?.get(keyOf(filter, where));

  return Object.assign(cachedCount, { remembered });
}

const exactCount = createCountCache();

/**
 * The disjoint parts whose counts add up to a filter's count under the OGC rule (a bbox also matches the proofs
 * without geometry, a time interval the proofs without an event time), each one an index range: inside the box or
 * without geometry, in the interval or without a time. One count of the OR would visit every proof without
 * geometry (5% of a million) again after each write; the parts without geometry come from proof_counts where the
 * other conditions allow (chain, revoked), or from a small partial index (db/schema.ts).
 */
export function countParts(f: ProofFilter): ProofFilter[] {
  let parts = [f];
  if (f.bboxMatchesMissing && f.bbox && !coversWorld(f.bbox) && f.hasCoordinates === undefined) {
    parts = parts.flatMap((q) => [
      { ...q, bboxMatchesMissing: false },
      { ...q, bbox: undefined, bboxMatchesMissing: false, hasCoordinates: false },
    ]);
  }
  if (f.timesMatchMissing && f.times?.length && f.hasEventTime === undefined) {
    parts = parts.flatMap((q) => [
      { ...q, timesMatchMissing: false },
      { ...q, times: undefined, timesMatchMissing: false, hasEventTime: false },
    ]);
  }
  return parts;
}

/**
 * The exact number of matches, not remembered: the parts' counts added up (countParts), each from the totals the
 * database keeps (lib/proofs/totals.ts) where they answer it, else from the rows.
 */
async function countMatches(db: Db, filter: ProofFilter, where: SQL | undefined): Promise<number> {
  const parts = countParts(filter);
  const rows = (f: ProofFilter) => countProofs(db, f, f === filter ? where : whereClause(f));
  let total = 0;
  for (const part of parts) total += (await countFromTotals(db, part, rows)) ?? (await rows(part));
  return total;
}

/**
 * A page and the exact number of matches, for the native list and the OGC items. The count decides the page's
 * plan: nothing to fetch when there is no match; filter-then-sort when the matches are few; the order index when
 * they are many, where it meets `limit` matches within a few index pages. One row more than the page is read, to
 * know whether another page follows.
 *
 * A count remembered from an earlier request (createCountCache) plans the page, and the page's own statement reads
 * the snapshot that proves it still exact: one statement for the request instead of two. When the snapshot moved
 * (a write since), the count is taken again and remembered under the page's snapshot; the rows stay (a commit
 * between the page and its recount shows in the count only, as it would between two requests).
 */
export async function pageAndCount(db: Db, filter: ProofFilter, page: Page): Promise<PageResult> {
  const where = whereClause(filter);
  const remembered = exactCount.remembered(db, filter, where);
  // An empty result, or an offset past the end, is answered by the count alone: it is checked first.
  const checkedByPage =
    remembered !== undefined &&
    remembered.n > 0 &&
    !(!page.cursor && page.offset && page.offset >= remembered.n);
  let total = checkedByPage ? remembered.n : await exactCount(db, filter, where);
  if (total === 0) return { rows: [], total, more: false };
  const selective = total <= SMALL_RESULT && where !== undefined;
  const wanted = page.limit + 1;
  const json = page.json;
  const keys = json ? sortKeys(page.sort).map((k) => k.column) : [];
  // The snapshot comes with the first statement that returns a row (an empty one carries none).
  let snapshot: string | undefined;
  const read = async (q: RowsQuery): Promise<ProofRow[]> => {
    const withSnapshot = { ...q, snapshot: checkedByPage && snapshot === undefined };
    const result = await (json
      ? selectProofJson(db, withSnapshot, json, keys)
      : selectProofs(db, withSnapshot));
    snapshot ??= result.snapshot;
    return result.rows;
  };
  const recountUnlessChecked = async () => {
    // Keyed by the page's snapshot: it was read before the recount's statements.
    if (checkedByPage && snapshot !== remembered.snapshot)
      total = await exactCount(db, filter, where, snapshot);
  };
  if (!page.cursor && page.offset) {
    if (page.offset >= total) return { rows: [], total, more: false };
    const rows = await read({
      where,
      orderBy: orderBy(page.sort, { avoidIndex: selective }),
      limit: wanted,
      offset: page.offset,
    });
    await recountUnlessChecked();
    return { rows: rows.slice(0, page.limit), total, more: rows.length > page.limit };
  }
  const rows: ProofRow[] = [];
  for (const segment of keysetSegments(page.sort, page.cursor, { avoidIndex: selective })) {
    if (rows.length >= wanted) break;
    rows.push(
      ...(await read({
        where: and(segmentWhere(filter, where, segment), segment.where),
        orderBy: segment.orderBy,
        limit: wanted - rows.length,
      })),
    );
  }
  await recountUnlessChecked();
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  // A prev page was read backwards from its cursor.
  if (page.cursor?.direction === "prev") kept.reverse();
  return { rows: kept, total, more };
}

/**
 * The filter's condition within one part of a keyset page. Under the OGC rule a time interval is `(event_timestamp
 * is null or in the interval)`: an OR the planner cannot turn into an index range, so the newest-first walk would
 * read every newer proof before the interval (350 ms for a month two months back, among a million). Within the
 * non-null part of the event_timestamp order the condition is the interval alone (an index range), within its null
 * part only "no event time".
 */
function segmentWhere(filter: ProofFilter, where: SQL | undefined, segment: Segment): SQL | undefined {
  if (!filter.timesMatchMissing || !filter.times?.length || segment.part?.field !== "event_timestamp")
    return where;
  return whereClause(
    segment.part.nulls
      ? { ...filter, times: undefined, timesMatchMissing: false, hasEventTime: false }
      : { ...filter, timesMatchMissing: false },
  );
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
