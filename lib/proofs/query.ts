import { asc, count, eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
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
 * A page and the exact number of matches, for the OGC items. The count runs first and decides the page's plan:
 * nothing to fetch when the offset is past the end; filter-then-sort when the matches are few; the order index
 * (newest first) when they are many, where it meets `limit` matches within a few index pages.
 */
export async function pageAndCount(
  db: Db,
  filter: ProofFilter,
  page: Page,
): Promise<{ rows: LocationProofRow[]; total: number }> {
  const total = await countProofs(db, filter);
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
