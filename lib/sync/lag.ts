import type { Hex } from "viem";

/**
 * The endpoint that answered did not know a block yet: a node behind a load balancer lagging the others, or a
 * fallback endpoint behind the first. It says nothing about a reorg — only a different hash at a height the node
 * has proves one (lib/sync/reorg.ts) — so the run waits and asks again, and otherwise stops without writing.
 */
export class BlockUnknownError extends Error {
  override name = "BlockUnknownError";
}

/**
 * How nodes say "I do not have that block yet": viem's BlockNotFoundError (a null block), the execution-apis'
 * eth_getLogs answer for a range past the node's head, geth's and erigon's missing header or state.
 */
const UNKNOWN_BLOCK =
  /beyond current head|header not found|unknown block|block not found|could not be found|missing trie node/i;

export function isUnknownBlock(error: unknown): boolean {
  for (
    let e = error as { name?: string; message?: string; details?: string; cause?: unknown } | undefined,
      depth = 0;
    e && depth < 6;
    depth++, e = e.cause as typeof e
  ) {
    if (e.name === "BlockNotFoundError" || e.name === "BlockUnknownError") return true;
    // A contract answering nothing at all: at the lagging node's head it is not deployed yet.
    if (e.name === "AbiDecodingZeroDataError") return true;
    if (UNKNOWN_BLOCK.test(`${e.message ?? ""} ${e.details ?? ""}`)) return true;
  }
  return false;
}

/** Asks this many more times (each time possibly another node, or the next fallback endpoint) before giving up. */
export const LAG_RETRIES = 4;
const pause = (attempt: number) => new Promise((r) => setTimeout(r, 100 * 2 ** attempt));

/**
 * Runs `fn` until the endpoint knows the block it asks about: an unknown-block answer is asked again after a short
 * pause (a round-robin provider sends it to another node; a lagging node catches up). Still unknown after
 * LAG_RETRIES: BlockUnknownError, which ends the run without writing what depended on it.
 */
export async function untilKnown<T>(what: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isUnknownBlock(error)) throw error;
      if (attempt >= LAG_RETRIES)
        throw new BlockUnknownError(`${what}: the RPC endpoint does not know the block yet`, {
          cause: error,
        });
    }
    await pause(attempt);
  }
}

/**
 * Reads records by uid and asks again for those the endpoint did not know (a lagging node reading at its own
 * latest block has not seen a recent attestation or schema). What is still missing after LAG_RETRIES stays null:
 * the caller decides (a record seen in a log and still unknown means the chain moved).
 */
export async function readUntilFound<T>(
  uids: readonly Hex[],
  read: (uids: readonly Hex[]) => Promise<Map<string, T | null>>,
): Promise<Map<string, T | null>> {
  const found = await untilKnown("read", () => read(uids));
  for (let attempt = 0; attempt < LAG_RETRIES; attempt++) {
    const missing = uids.filter((uid) => found.get(uid.toLowerCase()) === null);
    if (missing.length === 0) break;
    await pause(attempt);
    for (const [uid, record] of await untilKnown("read", () => read(missing))) {
      if (record !== null) found.set(uid, record);
    }
  }
  return found;
}
