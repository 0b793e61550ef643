import { asc, count, eq, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { type Db, queryRows } from "../../db/client.js";
import { type LocationProofRow, locationProofs as p } from "../../db/schema.js";
import { type ProofFilter, whereClause } from "./filter.js";
import { orderBy, type SortSpec } from "./sort.js";

export type Page = { limit: number; offset: number; sort?: SortSpec[] };

/** One page of proofs in a total order. */
export async function findProofs(db: Db, filter: ProofFilter, page: Page): Promise<LocationProofRow[]> {
  return db
    .select()
    .from(p)
    .where(whereClause(filter))
    .orderBy(...orderBy(page.sort))
    .limit(page.limit)
    .offset(page.offset);
}

/** How many proofs match the filter (the same WHERE clause as the page). */
export async function countProofs(db: Db, filter: ProofFilter): Promise<number> {
  const [row] = await db.select({ n: count() }).from(p).where(whereClause(filter));
  return Number(row?.n ?? 0);
}

/** A page and the number of matches, run concurrently. */
export async function listProofs(
  db: Db,
  filter: ProofFilter,
  page: Page,
): Promise<{ rows: LocationProofRow[]; total: number }> {
  const [rows, total] = await Promise.all([findProofs(db, filter, page), countProofs(db, filter)]);
  return { rows, total };
}

/**
 * Up to this many matches, a page is cut from the matches themselves (found through the best index for the filter,
 * then sorted), instead of walking the order index until enough matches turn up, which for a selective filter
 * (a city-sized bbox among a million proofs) can mean visiting most of the table.
 */
export const SMALL_RESULT = 5000;

/**
 * Exact counts, remembered while the database provably has not changed.
 *
 * An exact COUNT over a million proofs costs ~100 ms here whatever the index (it visits every matching entry), and a
 * client paging through a large result asks for the same count on every page. PostgreSQL's WAL insert position
 * moves with every write that can change a count (a commit record is inserted before the commit becomes visible), so
 * a count taken after reading position P is still exact for as long as the position is P. The position is read
 * before the count, in its own statement, so a write racing the count can only make the entry look stale, never
 * fresh. Unrelated writes (other tables) also move it: that costs a recount, never a wrong answer. Where the
 * position cannot be read, nothing is remembered. The cache is per process and per database handle, and bounded.
 */
export function createCountCache(maxEntries = 500) {
  const byDb = new WeakMap<Db, Map<string, { lsn: string; n: number }>>();
  const dialect = new PgDialect();
  let lsnUnavailable = false;

  async function walPosition(db: Db): Promise<string | undefined> {
    if (lsnUnavailable) return undefined;
    try {
      const [row] = await queryRows<{ lsn: string }>(
        db,
        sql`select (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_insert_lsn() end)::text as lsn`,
      );
      return row?.lsn ?? undefined;
    } catch {
      lsnUnavailable = true;
      return undefined;
    }
  }

  return async function cachedCount(db: Db, filter: ProofFilter): Promise<number> {
    const where = whereClause(filter);
    const compiled = where ? dialect.sqlToQuery(where) : { sql: "", params: [] };
    const key = `${compiled.sql}\u0000${JSON.stringify(compiled.params)}`;
    let entries = byDb.get(db);
    if (!entries) {
      entries = new Map();
      byDb.set(db, entries);
    }
    const lsn = await walPosition(db);
    const hit = entries.get(key);
    if (lsn !== undefined && hit?.lsn === lsn) return hit.n;
    const n = await countProofs(db, filter);
    if (lsn !== undefined) {
      entries.delete(key);
      entries.set(key, { lsn, n });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    }
    return n;
  };
}

const exactCount = createCountCache();

/**
 * A page and the exact number of matches, for the OGC items. The count runs first and decides the page's plan:
 * nothing to fetch when the offset is past the end; filter-then-sort when the matches are few; the order index
 * (newest first) when they are many, where it meets `limit` matches within a few index pages.
 */
export async function pageAndCount(
  db: Db,
  filter: ProofFilter,
  page: Page,
): Promise<{ rows: LocationProofRow[]; total: number }> {
  const total = await exactCount(db, filter);
  if (total === 0 || page.offset >= total) return { rows: [], total };
  const selective = total <= SMALL_RESULT && whereClause(filter) !== undefined;
  const rows = await db
    .select()
    .from(p)
    .where(whereClause(filter))
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
