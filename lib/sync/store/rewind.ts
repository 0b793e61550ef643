import { and, eq, gt, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../../db/client.js";
import { syncBlocks } from "../../../db/schema.js";
import { budgetMs } from "../deadline.js";
import { LeaseLostError } from "./lease.js";

/**
 * Undoes everything above `ancestor` (the newest block still canonical): rows of orphaned blocks go, revocations
 * that happened in orphaned blocks are undone, schemas registered in orphaned blocks are forgotten, and each cursor
 * above it (the chain's, discovery's, a schema's backfill) moves back to it — one transaction. `ancestor` below a
 * cursor's start block means "nothing read" for that cursor (a devnet that was reset). Discovery runs ahead of the
 * chain's cursor, so the ancestor may lie above the chain's cursor, which then stays.
 */
export async function rewind(
  db: Db,
  c: {
    chainId: number;
    owner: string;
    ancestor: number;
    startBlock: number;
    schemaStartBlock: number;
    statementTimeoutMs: number;
    /** the run's deadline (Writer.deadline): the rewind gets at most the time left */
    deadline?: number;
  },
): Promise<{ deleted: number; unrevoked: number; schemasForgotten: number }> {
  return transactionWithBudget(db, budgetMs(c), async (tx) => {
    const t = tx as unknown as Db;
    const cursorAt = (column: SQL, start: number) =>
      c.ancestor < start
        ? sql`null`
        : sql`case when ${column} > ${c.ancestor} then ${c.ancestor}::bigint else ${column} end`;
    const held = await queryRows<{ chain_id: number }>(
      t,
      sql`update sync_state set
            cursor_block = ${cursorAt(sql`cursor_block`, c.startBlock)},
            cursor_block_time = case when cursor_block > ${c.ancestor} or ${c.ancestor < c.startBlock} then null
                                     else cursor_block_time end,
            schema_cursor_block = ${cursorAt(sql`schema_cursor_block`, c.schemaStartBlock)},
            updated_at = now()
          where chain_id = ${c.chainId} and lease_owner = ${c.owner}
          returning chain_id`,
    );
    if (held.length === 0) throw new LeaseLostError("lease lost to another writer; rewind not done");
    const deleted = await queryRows<{ n: number }>(
      t,
      sql`with d as (delete from location_proofs where chain_id = ${c.chainId} and block_number > ${c.ancestor} returning 1)
          select count(*)::int as n from d`,
    );
    const unrevoked = await queryRows<{ n: number }>(
      t,
      sql`with u as (update location_proofs set revoked = false, revocation_time = null, revocation_block_number = null
                      where chain_id = ${c.chainId} and revocation_block_number > ${c.ancestor} returning 1)
          select count(*)::int as n from u`,
    );
    const forgotten = await queryRows<{ n: number }>(
      t,
      sql`with d as (delete from chain_schemas where chain_id = ${c.chainId} and registered_block > ${c.ancestor}
                     returning 1)
          select count(*)::int as n from d`,
    );
    await t.execute(
      sql`update chain_schemas set backfill_cursor = greatest(${c.ancestor}::bigint, backfill_from - 1), updated_at = now()
           where chain_id = ${c.chainId} and state = 'backfill' and backfill_cursor > ${c.ancestor}`,
    );
    await tx
      .delete(syncBlocks)
      .where(and(eq(syncBlocks.chainId, c.chainId), gt(syncBlocks.blockNumber, c.ancestor)));
    return {
      deleted: deleted[0]?.n ?? 0,
      unrevoked: unrevoked[0]?.n ?? 0,
      schemasForgotten: forgotten[0]?.n ?? 0,
    };
  });
}
