import { and, eq, inArray, sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../../db/client.js";
import { type ChainSchemaRow, chainSchemas } from "../../../db/schema.js";
import { holdLease, type Writer } from "./lease.js";

/** The schemas a chain's indexer knows (db/schema.ts chainSchemas). */
export async function chainSchemaRows(db: Db, chainId: number): Promise<ChainSchemaRow[]> {
  return db.select().from(chainSchemas).where(eq(chainSchemas.chainId, chainId)).orderBy(chainSchemas.uid);
}

export type NewChainSchema = typeof chainSchemas.$inferInsert;

/**
 * Applies the operator's decisions to a chain's schemas (lib/sync/schemas.ts): schemas newly indexed (with where
 * their backfill starts) and newly known, and schemas no longer indexed, whose rows go — one transaction under the
 * lease. Returns how many rows were removed.
 */
export async function applySchemaStates(
  db: Db,
  w: Writer & { upserts: NewChainSchema[]; off: string[] },
): Promise<number> {
  return transactionWithBudget(db, w.statementTimeoutMs, async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, w);
    for (const row of w.upserts) {
      await t
        .insert(chainSchemas)
        .values(row)
        .onConflictDoUpdate({
          target: [chainSchemas.chainId, chainSchemas.uid],
          set: {
            state: row.state,
            backfillFrom: row.backfillFrom ?? null,
            backfillCursor: row.backfillCursor ?? null,
            updatedAt: sql`now()`,
          },
        });
    }
    let removed = 0;
    if (w.off.length) {
      await t
        .update(chainSchemas)
        .set({ state: "off", backfillFrom: null, backfillCursor: null, updatedAt: sql`now()` })
        .where(and(eq(chainSchemas.chainId, w.chainId), inArray(chainSchemas.uid, w.off)));
      const [row] = await queryRows<{ n: number }>(
        t,
        sql`with d as (delete from location_proofs where chain_id = ${w.chainId} and schema_uid in ${w.off} returning 1)
            select count(*)::int as n from d`,
      );
      removed = row?.n ?? 0;
    }
    return removed;
  });
}
