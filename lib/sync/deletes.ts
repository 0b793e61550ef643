import type { SyncDeleteRow } from "../../db/schema.js";
import { log } from "../log.js";
import { deleteBatch } from "./store/pending-deletes.js";
import { deleteOffRows } from "./store/schema-states.js";
import type { Stage } from "./stream.js";

/**
 * Runs `step` (one batch, its own transaction) at least once, then again while it has more to do, the per-run cap
 * (deleteBatchesPerRun) allows and the run's time budget has room for another batch as slow as the slowest so far
 * (with a margin): deletes never start a batch that would carry the run past its budget.
 * Returns the rows deleted and whether it finished.
 */
async function batches(
  stage: Pick<Stage, "options" | "outOfBudget" | "budgetLeftMs">,
  kind: "denied" | "rewind" | "removal",
  step: () => Promise<{ deleted: number; done: boolean }>,
): Promise<{ deleted: number; done: boolean }> {
  const most = stage.options.deleteBatchesPerRun ?? Number.POSITIVE_INFINITY;
  let deleted = 0;
  let slowest = 0;
  const room = () => stage.budgetLeftMs === undefined || stage.budgetLeftMs() > slowest * 1.5;
  for (let n = 0; n < most && (n === 0 || (!stage.outOfBudget() && room())); n++) {
    const t = performance.now();
    const b = await step();
    slowest = Math.max(slowest, performance.now() - t);
    deleted += b.deleted;
    await stage.options.afterBatch?.({ kind, rows: b.deleted, done: b.done });
    if (b.done) return { deleted, done: true };
  }
  return { deleted, done: false };
}

/**
 * Finishes a reorg's rewind (lib/sync/store/rewind.ts queued it): the rows of orphaned blocks, then the revocations
 * made in them, in batches. Runs right after the reorg check and before any indexing, which waits until it returns
 * true: the cursor is already back at the fork, and a row indexed again above it must not be deleted by a later batch.
 */
export async function finishRewinds(stage: Stage, pending: readonly SyncDeleteRow[]): Promise<boolean> {
  for (const item of pending) {
    if (item.kind !== "rewind") continue;
    const { deleted, done } = await batches(stage, "rewind", () =>
      deleteBatch(stage.db, { ...stage.writer, batch: stage.options.deleteBatchSize, item }),
    );
    stage.schemaOutcome.removed += deleted;
    log(done ? "info" : "warn", "reorg: rows of orphaned blocks removed", {
      chain: stage.chain.name,
      above_block: item.aboveBlock,
      removed: deleted,
      done,
    });
    if (!done) return false;
  }
  return true;
}

/**
 * Removes the rows of schemas that are off (denied by policy, or removed by the operator), then the rows of an
 * operator's queued removals (scripts/remove-proofs.ts), in batches of `deleteBatchSize` rows, each its own
 * transaction under the lease and within the statement budget, for as long as the run's time budget lasts — at least
 * one batch of each kind per run, after the chain's own indexing, so a large removal never holds up the other
 * schemas. Returns true when none are left.
 */
export async function deleteRows(
  stage: Stage,
  offSchemas: boolean,
  removals: readonly SyncDeleteRow[],
): Promise<boolean> {
  const batch = stage.options.deleteBatchSize;
  let offDone = true;
  if (offSchemas) {
    const off = await batches(stage, "denied", async () => {
      const n = await deleteOffRows(stage.db, { ...stage.writer, batch });
      return { deleted: n, done: n < batch };
    });
    stage.schemaOutcome.removed += off.deleted;
    offDone = off.done;
    if (off.deleted)
      log("info", "schemas: rows of schemas no longer indexed removed", {
        chain: stage.chain.name,
        removed: off.deleted,
        done: off.done,
      });
  }
  let removalsDone = true;
  for (const item of removals) {
    if (item.kind !== "removal") continue;
    const r = await removeBatches(stage, item);
    if (!r.done) {
      removalsDone = false;
      break;
    }
  }
  return offDone && removalsDone;
}

/** Batches of one queued removal (also what scripts/remove-proofs.ts runs when it does the work itself). */
export async function removeBatches(
  stage: Pick<
    Stage,
    "db" | "writer" | "options" | "outOfBudget" | "budgetLeftMs" | "chain" | "schemaOutcome"
  >,
  item: SyncDeleteRow,
): Promise<{ deleted: number; done: boolean }> {
  const r = await batches(stage, "removal", () =>
    deleteBatch(stage.db, { ...stage.writer, batch: stage.options.deleteBatchSize, item }),
  );
  stage.schemaOutcome.removed += r.deleted;
  if (r.deleted || r.done)
    log("info", "removal: rows removed", {
      chain: stage.chain.name,
      removal: item.id,
      removed: r.deleted,
      done: r.done,
    });
  return r;
}
