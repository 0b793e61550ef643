import { type Db, transactionWithBudget } from "../../../db/client.js";
import { budgetMs } from "../deadline.js";
import { pruneBlocks, storeBlocks } from "./blocks.js";
import { holdLease, type Writer } from "./lease.js";

/**
 * A range near the head with no log of the SchemaRegistry or EAS (lib/sync/chain-sync.ts, the quiet path): both
 * cursors move to its last block, whose hash is stored for the next run's reorg check, in one transaction under the
 * lease — what commitDiscovery and commitBatch would write for it, in one commit instead of two.
 */
export async function commitQuiet(
  db: Db,
  c: Writer & {
    block: { number: number; hash: string; time: Date };
    rangeSize: number;
    schemaRangeSize: number;
  },
): Promise<void> {
  await transactionWithBudget(db, budgetMs(c), async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, c, {
      cursorBlock: c.block.number,
      cursorBlockTime: c.block.time,
      rangeSize: c.rangeSize,
      schemaCursorBlock: c.block.number,
      schemaRangeSize: c.schemaRangeSize,
    });
    await storeBlocks(t, c.chainId, [{ number: c.block.number, hash: c.block.hash }]);
    await pruneBlocks(t, c.chainId, c.block.number);
  });
}
