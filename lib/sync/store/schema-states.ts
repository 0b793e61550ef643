import { and, eq, inArray, sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../../db/client.js";
import { type ChainSchemaRow, chainSchemas } from "../../../db/schema.js";
import { budgetMs } from "../deadline.js";
import { deleteChainRows } from "./delete-rows.js";
import { holdLease, type Writer } from "./lease.js";

/** The schemas a chain's indexer knows (db/schema.ts chainSchemas). */
export async function chainSchemaRows(db: Db, chainId: number): Promise<ChainSchemaRow[]> {
  return db.select().from(chainSchemas).where(eq(chainSchemas.chainId, chainId)).orderBy(chainSchemas.uid);
}

export type NewChainSchema = typeof chainSchemas.$inferInsert;

/**
 * Applies the operator's decisions to a chain's schemas (lib/sync/schemas.ts): schemas newly indexed (with where
 * their backfill starts) and newly known, and schemas no longer indexed (`off`; their rows go in batches,
 * deleteOffRows) — one transaction under the lease. Returns how many rows were removed here: none.
 */
export async function applySchemaStates(
  db: Db,
  w: Writer & { upserts: NewChainSchema[]; off: string[] },
): Promise<number> {
  return transactionWithBudget(db, budgetMs(w), async (tx) => {
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
    if (w.off.length) {
      // The rows go later, in batches (deleteOffRows): one delete of a large schema could outlast the statement
      // budget, fail every run, and stall the chain.
      await t
        .update(chainSchemas)
        .set({ state: "off", backfillFrom: null, backfillCursor: null, updatedAt: sql`now()` })
        .where(and(eq(chainSchemas.chainId, w.chainId), inArray(chainSchemas.uid, w.off)));
    }
    return 0;
  });
}

/**
 * Deletes up to `batch` rows of the chain's schemas that are off (denied, or removed by the operator), in one
 * transaction under the lease: one statement, so the count tables' statement triggers keep the counts exact after
 * every batch. Returns how many rows went (fewer than `batch`: none are left).
 */
export async function deleteOffRows(db: Db, w: Writer & { batch: number }): Promise<number> {
  return transactionWithBudget(db, budgetMs(w), async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, w);
    return deleteChainRows(
      t,
      w.chainId,
      sql`schema_uid in (select uid from chain_schemas where chain_id = ${w.chainId} and state = 'off')`,
      w.batch,
    );
  });
}

/** Rows of the chain's schemas that are off and not deleted yet, from the count tables (no scan of the proofs). */
export async function offRowsLeft(db: Db, chain: { chainId: number; name: string }): Promise<number> {
  const [row] = await queryRows<{ n: string | number | null }>(
    db,
    sql`select coalesce(sum(c.n), 0) as n from proof_schema_counts c
         where c.chain = ${chain.name}
           and c.schema_uid in (select uid from chain_schemas where chain_id = ${chain.chainId} and state = 'off')`,
  );
  return Number(row?.n ?? 0);
}

/** The chain's proofs that are not revoked (what a reconciliation pass reads), from the count tables. */
export async function unrevokedRows(db: Db, chain: string): Promise<number> {
  const [row] = await queryRows<{ n: string | number | null }>(
    db,
    sql`select coalesce(sum(n), 0) as n from proof_counts where chain = ${chain} and revoked = false`,
  );
  return Number(row?.n ?? 0);
}
