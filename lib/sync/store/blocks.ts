import { asc, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client.js";
import { syncBlocks } from "../../../db/schema.js";

/** Block hashes older than this many blocks behind the cursor are pruned: no reorg reaches that deep. */
const KEEP_BLOCK_HASHES = 50_000;

/** Forgets block hashes too deep for a reorg to reach, below the chain's cursor (the lower of its two cursors). */
export async function pruneBlocks(db: Db, chainId: number, cursor: number): Promise<void> {
  await db.execute(
    sql`delete from sync_blocks where chain_id = ${chainId} and block_number < least(${cursor},
          coalesce((select cursor_block from sync_state where chain_id = ${chainId}), ${cursor})) - ${KEEP_BLOCK_HASHES}`,
  );
}

/** Block hashes of a write, upserted: each committed range's last block and the blocks that held its logs. */
export async function storeBlocks(
  db: Db,
  chainId: number,
  blocks: { number: number; hash: string }[],
): Promise<void> {
  if (blocks.length === 0) return;
  await db
    .insert(syncBlocks)
    .values(blocks.map((b) => ({ chainId, blockNumber: b.number, blockHash: b.hash })))
    .onConflictDoUpdate({
      target: [syncBlocks.chainId, syncBlocks.blockNumber],
      set: { blockHash: sql.raw("excluded.block_hash") },
    });
}

/** Stored block hashes, oldest first, for reorg detection; `newestOnly` for the cheap check of every run. */
export async function storedBlocks(
  db: Db,
  chainId: number,
  newestOnly = false,
): Promise<{ number: number; hash: string }[]> {
  const query = db
    .select({ number: syncBlocks.blockNumber, hash: syncBlocks.blockHash })
    .from(syncBlocks)
    .where(eq(syncBlocks.chainId, chainId));
  if (newestOnly) return query.orderBy(desc(syncBlocks.blockNumber)).limit(1);
  return query.orderBy(asc(syncBlocks.blockNumber));
}
