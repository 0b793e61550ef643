import { sql } from "drizzle-orm";
import { type Db, transactionWithBudget } from "../../../db/client.js";
import { chainSchemas } from "../../../db/schema.js";
import { type OffchainChainEvent, storeOffchainEvents } from "../../offchain/chain-events.js";
import { budgetMs } from "../deadline.js";
import { pruneBlocks, storeBlocks } from "./blocks.js";
import { holdLease, type Writer } from "./lease.js";
import type { NewChainSchema } from "./schema-states.js";

/**
 * One discovery step (lib/sync/discovery.ts), like commitBatch: the schemas it found (a schema seen again keeps its
 * state and learns where it was registered), EAS's off-chain events it read, the block hashes, and the discovery
 * cursor, in one transaction under the lease.
 */
export async function commitDiscovery(
  db: Db,
  c: Writer & {
    schemas: NewChainSchema[];
    /** EAS's off-chain events of the step's ranges (lib/offchain/chain-events.ts) */
    offchain?: OffchainChainEvent[];
    blocks: { number: number; hash: string }[];
    cursor: number;
    rangeSize: number;
  },
): Promise<void> {
  await transactionWithBudget(db, budgetMs(c), async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, c, { schemaCursorBlock: c.cursor, schemaRangeSize: c.rangeSize });
    if (c.schemas.length) {
      await t
        .insert(chainSchemas)
        .values(c.schemas)
        .onConflictDoUpdate({
          target: [chainSchemas.chainId, chainSchemas.uid],
          set: {
            registeredBlock: sql`coalesce(${chainSchemas.registeredBlock}, excluded.registered_block)`,
            updatedAt: sql`now()`,
          },
        });
    }
    if (c.offchain?.length) await storeOffchainEvents(t, c.chainId, c.offchain);
    await storeBlocks(t, c.chainId, c.blocks);
    await pruneBlocks(t, c.chainId, c.cursor);
  });
}
