import { log } from "../log.js";
import { deleteOffRows } from "./store/schema-states.js";
import type { Stage } from "./stream.js";

/**
 * Removes the rows of schemas that are off (denied by policy, or removed by the operator) in batches of
 * `deleteBatchSize` rows, each its own transaction under the lease and within the statement budget, for as long as
 * the run's time budget lasts — at least one batch per run, after the chain's own indexing, so a large removal never
 * holds up the other schemas. Returns true when none are left.
 */
export async function deleteRows(stage: Stage): Promise<boolean> {
  const batch = stage.options.deleteBatchSize;
  let removed = 0;
  let done = false;
  const most = stage.options.deleteBatchesPerRun ?? Number.POSITIVE_INFINITY;
  for (let batches = 0; batches < most && (batches === 0 || !stage.outOfBudget()); batches++) {
    const n = await deleteOffRows(stage.db, { ...stage.writer, batch });
    removed += n;
    if (n < batch) {
      done = true;
      break;
    }
  }
  stage.schemaOutcome.removed += removed;
  if (removed)
    log("info", "schemas: rows of schemas no longer indexed removed", {
      chain: stage.chain.name,
      removed,
      done,
    });
  return done;
}
