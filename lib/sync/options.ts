import type { Config } from "../config.js";
import type { SchemaPolicy } from "./schemas.js";

/** The knobs of one sync invocation. Defaults suit a 30 s serverless function and public RPC providers. */
export type SyncOptions = {
  /** Stop starting new work after this long (ms); the current commit still finishes. */
  timeBudgetMs: number;
  /**
   * The run's hard end (ms after it started): RPC requests in flight are abandoned and commits get at most the time
   * left (lib/sync/deadline.ts). Default: the time budget plus DEADLINE_GRACE_MS, which with the default budget (20 s)
   * leaves the cron function (maxDuration 30 s) time to release the lease and write the run's history.
   */
  deadlineMs: number;
  /** Most blocks scanned per invocation. */
  blockBudget: number;
  /** First eth_getLogs range (blocks) before any provider feedback. */
  initialRange: number;
  /** Ranges grow ×2 after each success up to this. */
  maxRange: number;
  /** getAttestation reads per Multicall3 call (~88k gas each; nodes cap eth_call at 30–50M gas). */
  readBatchSize: number;
  /** Multicall3 calls in flight at once. */
  readConcurrency: number;
  /** Attestations per database transaction: bounds memory and the work lost if the function is killed. */
  commitSize: number;
  /**
   * Lease period. The holder renews it every `heartbeatMs` while its run is alive (and at each commit), so a killed
   * writer's lease lapses within one period of its last beat and the next run takes the chain over.
   */
  leaseMs: number;
  /** How often a live run renews its lease and its run row: a third of the lease period unless overridden. */
  heartbeatMs: number;
  /**
   * Statement budget inside the engine's transactions (a commit writes thousands of rows): longer than a public
   * read's, and short enough that the time budget plus one commit fits the function's maxDuration (vercel.json;
   * docs/security.md, "Database outages and timeouts").
   */
  statementTimeoutMs: number;
  /** Asked next to the time budget: true stops the run the same way (after the batch in flight; e.g. Ctrl-C). */
  shouldStop?: () => boolean;
  /**
   * Rows deleted per transaction when a schema is no longer indexed (lib/sync/deletes.ts): small enough that a batch,
   * with the count triggers it fires, fits the statement budget.
   */
  deleteBatchSize: number;
  /** At most this many delete batches per run (default: as many as the time budget allows). */
  deleteBatchesPerRun?: number;
  /**
   * Called after each committed batch of the batched work: a delete batch (a denied schema's rows, a rewind's, an
   * operator's removal) or a reconciliation page. Tests check the database between batches with it, and a test's
   * worker prints a line per batch so that its parent can kill it at any step.
   */
  afterBatch?: (batch: {
    kind: "denied" | "rewind" | "removal" | "reconcile";
    rows: number;
    done: boolean;
  }) => void | Promise<void>;
  /** Proofs per page of revocation reconciliation (lib/sync/revocations.ts RECONCILE_PAGE unless set). */
  reconcilePageSize?: number;
  /** Which schemas are indexed (SCHEMA_MODE, SCHEMA_ALLOW, SCHEMA_DENY; lib/sync/schemas.ts). */
  schemaPolicy: SchemaPolicy;
};

/**
 * The range size to ask next after `covered` blocks were read: what the provider accepted when it refused a larger
 * range, else doubled after a clean success (ponder's strategy), at most maxRange. Remembered for the next run.
 */
export const nextRange = (
  options: Pick<SyncOptions, "maxRange">,
  size: number,
  covered: number,
  refused = false,
) => (refused ? covered : Math.min(options.maxRange, Math.max(size, covered) * 2));

/** How long past the time budget a step started before it may still run (SyncOptions.deadlineMs). */
export const DEADLINE_GRACE_MS = 5_000;

export function syncOptions(
  config: Pick<Config, "syncTimeBudgetMs" | "syncBlockBudget" | "syncLeaseMs" | "database" | "schemas">,
  overrides: Partial<SyncOptions> = {},
): SyncOptions {
  const timeBudgetMs = overrides.timeBudgetMs ?? config.syncTimeBudgetMs;
  const leaseMs = overrides.leaseMs ?? config.syncLeaseMs;
  return {
    timeBudgetMs,
    deadlineMs: timeBudgetMs + DEADLINE_GRACE_MS,
    blockBudget: config.syncBlockBudget,
    initialRange: 2_000,
    maxRange: 100_000,
    readBatchSize: 100,
    readConcurrency: 4,
    commitSize: 2_000,
    deleteBatchSize: 10_000,
    leaseMs,
    heartbeatMs: Math.max(100, Math.floor(leaseMs / 3)),
    statementTimeoutMs: config.database.syncStatementTimeoutMs,
    schemaPolicy: config.schemas,
    ...overrides,
  };
}
