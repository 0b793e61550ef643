import { and, eq, gt, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../../db/client.js";
import { syncBlocks } from "../../../db/schema.js";
import { rewindOffchainEvents } from "../../offchain/chain-events.js";
import { budgetMs } from "../deadline.js";
import { LeaseLostError } from "./lease.js";

/**
 * Starts undoing everything above `ancestor` (the newest block still canonical), in one transaction: each cursor
 * above it (the chain's, discovery's, a schema's backfill) moves back to it, the stored hashes above it go, schemas
 * registered in orphaned blocks are forgotten, an operator's pending removal stops at it, and the rows of orphaned
 * blocks (and the revocations made in them) are queued as a `rewind` delete (db/schema.ts syncDeletes) with their
 * count. Those rows go in batches (lib/sync/deletes.ts finishRewinds), and the chain is not indexed past the ancestor
 * until they are gone: a row re-indexed in that range must not be deleted by a batch that comes after it. A pending
 * rewind below this one already covers it; one above it is replaced by this one. `ancestor` below a cursor's start
 * block means "nothing read" for that cursor (a devnet that was reset). Discovery runs ahead of the chain's cursor,
 * so the ancestor may lie above the chain's cursor, which then stays.
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
): Promise<{ rows: number; above: number; schemasForgotten: number }> {
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
    // EAS's off-chain events of orphaned blocks go now (few, and no row of theirs is queued), and the records they
    // revoked or timestamped are worked out again (lib/offchain/chain-events.ts).
    await rewindOffchainEvents(t, c.chainId, c.ancestor);
    await tx
      .delete(syncBlocks)
      .where(and(eq(syncBlocks.chainId, c.chainId), gt(syncBlocks.blockNumber, c.ancestor)));
    // Removals queued before the reorg stop at the ancestor: rows indexed again above it are new.
    await t.execute(
      sql`update sync_deletes set up_to_block = ${c.ancestor}
           where chain_id = ${c.chainId} and kind = 'removal' and completed_at is null and up_to_block > ${c.ancestor}`,
    );
    const [pending] = await queryRows<{ above: number }>(
      t,
      sql`select min(above_block)::int as above from sync_deletes
           where chain_id = ${c.chainId} and kind = 'rewind' and completed_at is null`,
    );
    const above =
      pending?.above === null || pending?.above === undefined
        ? c.ancestor
        : Math.min(pending.above, c.ancestor);
    await t.execute(
      sql`update sync_deletes set completed_at = now()
           where chain_id = ${c.chainId} and kind = 'rewind' and completed_at is null`,
    );
    // Counted through the (chain_id, block_number) index, once: the status shows what remains without counting again.
    const [rows] = await queryRows<{ n: number }>(
      t,
      sql`select count(*)::int as n from location_proofs where chain_id = ${c.chainId} and block_number > ${above}`,
    );
    await t.execute(
      sql`insert into sync_deletes (chain_id, kind, above_block, rows_total, requested_by)
          values (${c.chainId}, 'rewind', ${above}, ${rows?.n ?? 0}, ${c.owner})`,
    );
    return { rows: rows?.n ?? 0, above, schemasForgotten: forgotten[0]?.n ?? 0 };
  });
}
