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
 * One proof by uid, revoked or not. A uid is unique per chain; should two chains ever hold the same uid, the one of
 * the lowest chain id is returned (deterministically).
 */
export async function findProofByUid(db: Db, uid: string): Promise<LocationProofRow | undefined> {
  const [row] = await db.select().from(p).where(eq(p.uid, uid)).orderBy(asc(p.chainId)).limit(1);
  return row;
}
