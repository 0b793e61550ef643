import type { ChainClient } from "../chains/client.js";
import { BlockUnknownError, untilKnown } from "./lag.js";

type Stored = { number: number; hash: string };

/**
 * What the chain says about a stored block: the same hash (canonical), another hash at a height the node has
 * (orphaned: the only proof of a reorg), or nothing it can say — the block is above the head this run saw, or the
 * endpoint does not know it after asking again (a lagging node; lib/sync/lag.ts).
 */
async function blockState(
  client: ChainClient,
  block: Stored,
  head: number,
  read?: Promise<{ hash: string | null }>,
): Promise<"canonical" | "orphaned" | "unknown"> {
  if (block.number > head) return "unknown";
  try {
    // A read made alongside the head (see readTop): used when it answered; else asked again like any block.
    const early = read ? await read.catch(() => undefined) : undefined;
    const b =
      early ??
      (await untilKnown(`block ${block.number}`, () =>
        client.getBlock({ blockNumber: BigInt(block.number) }),
      ));
    return b.hash?.toLowerCase() === block.hash.toLowerCase() ? "canonical" : "orphaned";
  } catch (error) {
    if (error instanceof BlockUnknownError) return "unknown";
    throw error;
  }
}

/**
 * Checks the newest stored block hash against the chain. Canonical: no reorg. A different hash: finds the newest
 * stored block still canonical. A block's hash commits to its parent, so canonical-ness is monotone along the stored
 * list (canonical up to some block, orphaned after it) and a binary search needs only log2(n) requests — even for a
 * devnet that was reset, where every stored hash is stale.
 *
 * When the newest block cannot be checked (above the head seen, or unknown to the endpoint), the newest stored
 * block at or below the head decides: orphaned proves a reorg (a rollback, a reset devnet); canonical means a
 * lagging node, and nothing is undone — the run cannot write above the head it saw anyway. Returns undefined when
 * there was no reorg, else the common ancestor (null: no stored block survives, re-index from the start block).
 * Throws BlockUnknownError when a block the decision needs stays unknown: the run stops, nothing is deleted.
 */
export async function findReorg(
  client: ChainClient,
  head: number,
  newest: readonly Stored[],
  all: () => Promise<Stored[]>,
  topRead?: Promise<{ hash: string | null }>,
): Promise<{ ancestor: number | null } | undefined> {
  const top = newest.at(-1);
  if (!top) return undefined;
  const topState = await blockState(client, top, head, topRead);
  if (topState === "canonical") return undefined;
  const stored = await all();
  let hi = stored.length - 1; // index of the oldest block known orphaned
  if (topState === "unknown") {
    // The newest stored block the node must have: at or below the head it reported.
    let known = stored.length - 1;
    while (known >= 0 && stored[known]!.number > head) known--;
    if (known < 0) return undefined; // nothing checkable yet: wait for the head to pass the stored blocks
    const state = await blockState(client, stored[known]!, head);
    if (state === "unknown") {
      throw new BlockUnknownError(`block ${stored[known]!.number}: the RPC endpoint does not know it yet`);
    }
    if (state === "canonical") {
      if (top.number <= head)
        throw new BlockUnknownError(`block ${top.number}: the RPC endpoint does not know it yet`);
      return undefined;
    }
    hi = known;
  }
  let lo = -1; // index of the newest block known canonical (-1: none)
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const state = await blockState(client, stored[mid]!, head);
    if (state === "unknown")
      throw new BlockUnknownError(`block ${stored[mid]!.number}: the RPC endpoint does not know it yet`);
    if (state === "canonical") lo = mid;
    else hi = mid;
  }
  return { ancestor: lo >= 0 ? stored[lo]!.number : null };
}

/**
 * Starts reading the newest stored block in the same tick as the head (the run sends both in one HTTP request: a
 * JSON-RPC batch, lib/chains/client.ts); findReorg then uses the answer, or asks again when the node did not know
 * the block. Never rejects unobserved.
 */
export function readTop(
  client: ChainClient,
  newest: readonly Stored[],
): Promise<{ hash: string | null }> | undefined {
  const top = newest.at(-1);
  if (!top) return undefined;
  const read = client.getBlock({ blockNumber: BigInt(top.number) });
  read.catch(() => {});
  return read;
}
