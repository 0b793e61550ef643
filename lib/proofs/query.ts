import { asc, count, eq, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { type Db, queryRows } from "../../db/client.js";
import { type LocationProofRow, locationProofs as p } from "../../db/schema.js";
import { type ProofFilter, whereClause } from "./filter.js";
import { orderBy, type SortSpec } from "./sort.js";
import { countFromTotals } from "./totals.js";

export type Page = { limit: number; offset: number; sort?: SortSpec[] };

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
 * paging through a large result asks for the same count on every page. The key is the MVCC snapshot the count was
 * taken under (`pg_current_snapshot()`: xmin, xmax and the transactions in progress), read in the same statement as
 * the count, so it is exactly the snapshot the count saw. A later statement whose snapshot is identical sees exactly
 * the same committed transactions, hence the same count. Every writing transaction changes the snapshot — it takes
 * a transaction id (xmax moves) and is listed as in progress until it ends — so a commit that becomes visible after
 * a count was taken always changes the key. (A WAL position is not such a key: a commit's WAL record is written
 * before the commit becomes visible, and nothing need be written after it.) Unrelated writes also change the
 * snapshot: that costs a recount, never a wrong answer. Where the snapshot cannot be read, nothing is remembered.
 * The cache is per process and per database handle, and bounded.
 */
export function createCountCache(maxEntries = 500) {
  const byDb = new WeakMap<Db, Map<string, { snapshot: string; n: number }>>();
  const dialect = new PgDialect();
  let snapshotUnavailable = false;

  async function currentSnapshot(db: Db): Promise<string | undefined> {
    if (snapshotUnavailable) return undefined;
    try {
      const [row] = await queryRows<{ snapshot: string }>(
        db,
        sql`select pg_current_snapshot()::text as snapshot`,
      );
      return row?.snapshot;
    } catch {
      snapshotUnavailable = true;
      return undefined;
    }
  }

  return async function cachedCount(
    db: Db,
    filter: ProofFilter,
    where = whereClause(filter),
  ): Promise<number> {
    const total = await countFromTotals(db, filter);
    if (total !== undefined) return total;
    if (snapshotUnavailable) return countProofs(db, filter, where);
    const compiled = where ? dialect.sqlToQuery(where) : { sql: "", params: [] };
    const key = `${compiled.sql}\u0000${JSON.stringify(compiled.params)}`;
    let entries = byDb.get(db);
    if (!entries) {
      entries = new Map();
      byDb.set(db, entries);
    }
    const hit = entries.get(key);
    if (hit && hit.snapshot === (await currentSnapshot(db))) return hit.n;
    let row: { n: string | number; snapshot: string } | undefined;
    try {
      [row] = await queryRows<{ n: string | number; snapshot: string }>(
        db,
        sql`select count(*) as n, pg_current_snapshot()::text as snapshot from ${p} ${where ? sql`where ${where}` : sql``}`,
      );
    } catch {
      // PostgreSQL before 13 has no pg_current_snapshot(): count without remembering. A real database failure
      // fails the plain count below just the same.
      snapshotUnavailable = true;
      return countProofs(db, filter, where);
    }
    const n = Number(row?.n ?? 0);
    entries.delete(key);
    entries.set(key, { snapshot: row!.snapshot, n });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return n;
  };
}

const exactCount = createCountCache();

/**
 * A page and the exact number of matches, for the native list and the OGC items. The count runs first and decides
 * the page's plan: nothing to fetch when the offset is past the end; filter-then-sort when the matches are few; the
 * order index (newest first) when they are many, where it meets `limit` matches within a few index pages.
 */
export async function pageAndCount(
  db: Db,
  filter: ProofFilter,
  page: Page,
): Promise<{ rows: LocationProofRow[]; total: number }> {
  const where = whereClause(filter);
  const total = await exactCount(db, filter, where);
  if (total === 0 || page.offset >= total) return { rows: [], total };
  const selective = total <= SMALL_RESULT && where !== undefined;
  const rows = await db
    .select()
    .from(p)
    .where(where)
    .orderBy(...orderBy(page.sort, { avoidIndex: selective }))
    .limit(page.limit)
    .offset(page.offset);
  return { rows, total };
}

/**
 * One proof by uid, revoked or not. A uid is unique per chain; should two chains ever hold the same uid, the one of
 * the lowest chain id is returned (deterministically).
 */
export async function findProofByUid(db: Db, uid: string): Promise<LocationProofRow | undefined> {
  const [row] = await db.select().from(p).where(eq(p.uid, uid)).orderBy(asc(p.chainId)).limit(1);
  return row;
}
