import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { type SyncDeleteRow, syncState } from "../../db/schema.js";
import { acquireLease, ensureState, releaseLease } from "./store/lease.js";
import { deleteBatch, pendingDeletes, queueRemoval, type RemovalTarget } from "./store/pending-deletes.js";

export type { RemovalTarget } from "./store/pending-deletes.js";

/**
 * An operator's removal of stored proofs (scripts/remove-proofs.ts): a chain's, a schema's, or listed uids'. It is
 * queued (db/schema.ts syncDeletes) with what it matches now, then deleted in batches — by the chain's sync runs
 * after their indexing (lib/sync/deletes.ts), or by `performRemoval` here, under the chain's lease like a sync run.
 * Each batch is one transaction and one statement, so the count tables stay exact after every batch, and a removal
 * stopped part way (Ctrl-C, a crash) is continued by the next run or the next call.
 */
export async function queueProofRemoval(
  db: Db,
  chain: { chainId: number; name: string },
  target: RemovalTarget,
  requestedBy: string,
): Promise<SyncDeleteRow> {
  if (target.schemaUid !== undefined && target.uids !== undefined)
    throw new Error("a removal names a schema or uids, not both");
  if (target.uids !== undefined && target.uids.length === 0)
    throw new Error("a removal of uids needs at least one");
  await ensureState(db, chain);
  return queueRemoval(db, { chainId: chain.chainId, requestedBy, ...target });
}

/** The chain's removals not yet done (queued, or stopped part way). */
export async function pendingRemovals(db: Db, chainId: number): Promise<SyncDeleteRow[]> {
  return (await pendingDeletes(db, chainId)).filter((d) => d.kind === "removal");
}

export type RemovalProgress = { id: number; total: number; deleted: number; done: boolean };

/**
 * Deletes a queued removal's rows in batches of `batch` until none are left, holding the chain's lease for at most
 * `stepMs` at a time (then releasing it, so that the chain's sync runs are not kept out for long), and waiting while
 * another writer holds it. `shouldStop` is asked between batches. Returns the rows this call deleted and whether the
 * removal is done.
 */
export async function performRemoval(deps: {
  db: Db;
  chainId: number;
  item: SyncDeleteRow;
  owner: string;
  batch: number;
  leaseMs: number;
  statementTimeoutMs: number;
  stepMs: number;
  shouldStop?: () => boolean;
  onBatch?: (p: RemovalProgress) => void;
  onWait?: (holder: string | null) => void;
}): Promise<{ deleted: number; done: boolean }> {
  const { db, chainId, item, owner } = deps;
  const writer = { chainId, owner, leaseMs: deps.leaseMs, statementTimeoutMs: deps.statementTimeoutMs };
  let deleted = 0;
  let done = false;
  while (!done && !deps.shouldStop?.()) {
    const leased = await acquireLease(db, chainId, owner, deps.leaseMs);
    if (!leased) {
      const [state] = await db
        .select({ holder: syncState.leaseOwner })
        .from(syncState)
        .where(eq(syncState.chainId, chainId));
      deps.onWait?.(state?.holder ?? null);
      await new Promise((r) => setTimeout(r, 1_000));
      continue;
    }
    try {
      const until = performance.now() + deps.stepMs;
      while (!done && performance.now() < until && !deps.shouldStop?.()) {
        const b = await deleteBatch(db, { ...writer, batch: deps.batch, item });
        deleted += b.deleted;
        done = b.done;
        deps.onBatch?.({ id: item.id, total: item.rowsTotal, deleted: item.rowsDeleted + deleted, done });
      }
    } finally {
      await releaseLease(db, chainId, owner);
    }
  }
  return { deleted, done };
}
