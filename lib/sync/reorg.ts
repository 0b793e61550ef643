import type { ChainClient } from "../chains/client.js";

/** Whether the chain still has `hash` at `number`; a block above the head (anvil_rollback) is not canonical. */
async function isCanonical(client: ChainClient, block: { number: number; hash: string }): Promise<boolean> {
  try {
    const b = await client.getBlock({ blockNumber: BigInt(block.number) });
    return b.hash?.toLowerCase() === block.hash.toLowerCase();
  } catch (error) {
    if ((error as { name?: string }).name === "BlockNotFoundError") return false;
    throw error;
  }
}

/**
 * Checks the newest stored block hash; if the chain no longer has it, finds the newest stored block that is still
 * canonical. A block's hash commits to its parent, so canonical-ness is monotone along the stored list (canonical up
 * to some block, orphaned after it) and a binary search needs only log2(n) requests — even for a devnet that was
 * reset, where every stored hash is stale. Returns undefined when there was no reorg, else the common ancestor
 * (null: no stored block survives, re-index from the start block).
 */
export async function findReorg(
  client: ChainClient,
  newest: readonly { number: number; hash: string }[],
  all: () => Promise<{ number: number; hash: string }[]>,
): Promise<{ ancestor: number | null } | undefined> {
  const top = newest.at(-1);
  if (!top || (await isCanonical(client, top))) return undefined;
  const stored = await all();
  let lo = -1; // index of the newest block known canonical (-1: none)
  let hi = stored.length - 1; // index of the oldest block known orphaned
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (await isCanonical(client, stored[mid]!)) lo = mid;
    else hi = mid;
  }
  return { ancestor: lo >= 0 ? stored[lo]!.number : null };
}
