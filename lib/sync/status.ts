import type { Db } from "../../db/client.js";
import type { ChainClient } from "../chains/client.js";
import type { ChainConfig } from "../chains/registry.js";
import { RECONCILE_PAGE } from "./revocations.js";
import { ensureState } from "./store/lease.js";
import { pendingDeletes } from "./store/pending-deletes.js";
import { lastRuns } from "./store/runs.js";
import { offRowsLeft, unrevokedRows } from "./store/schema-states.js";
import { type HealthRules, heartbeatOverdue, writerHealth, writerState } from "./writer-health.js";

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** A live head within a short timeout; status must answer even when a provider hangs. */
async function liveHead(client: ChainClient | undefined): Promise<number | null> {
  if (!client) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    return Number(
      await Promise.race([
        client.getBlockNumber({ cacheTime: 0 }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("timeout")), 3000);
        }),
      ]),
    );
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One chain's persisted sync state, its live head and lag, its last run, its lease (holder, expiry, last heartbeat)
 * and its writer's health (lib/sync/writer-health.ts, under the configured lease period and alert threshold).
 */
export async function chainStatus(deps: {
  db: Db;
  chain: ChainConfig;
  client: ChainClient | undefined;
  rules: HealthRules;
  /** reconciliation's page size, when not the default (SyncOptions.reconcilePageSize) */
  reconcilePageSize?: number;
}) {
  const { db, chain } = deps;
  const [state, runs, live, deniedLeft, pending, unrevoked] = await Promise.all([
    ensureState(db, chain),
    lastRuns(db, chain.chainId),
    liveHead(deps.client),
    offRowsLeft(db, chain),
    pendingDeletes(db, chain.chainId),
    unrevokedRows(db, chain.name),
  ]);
  // What a queued delete matched when it was queued, less what has gone since: no count of the proofs here.
  const rowsLeft = (d: { rowsTotal: number; rowsDeleted: number }) =>
    Math.max(0, d.rowsTotal - d.rowsDeleted);
  const rewind = pending.find((d) => d.kind === "rewind");
  const removals = pending.filter((d) => d.kind === "removal");
  const pageSize = deps.reconcilePageSize ?? RECONCILE_PAGE;
  const toCheck =
    state.reconcileCursor === null ? unrevoked : Math.max(0, unrevoked - state.reconcileChecked);
  const head = live ?? state.headBlock;
  const confirmedHead = head === null ? null : head - chain.confirmations;
  const now = new Date();
  const writer = writerState(state);
  const lease = writer.lease;
  const run = runs.last;
  return {
    chain: chain.name,
    chain_id: chain.chainId,
    enabled: chain.enabled,
    paused: state.paused,
    start_block: chain.startBlock,
    confirmations: chain.confirmations,
    cursor_block: state.cursorBlock,
    cursor_block_time: iso(state.cursorBlockTime),
    // Schema discovery (lib/sync/discovery.ts): its own cursor, ahead of or at the chain's.
    schema_start_block: chain.schemaStartBlock,
    schema_cursor_block: state.schemaCursorBlock,
    head_block: head,
    head_source: live !== null ? "live" : head !== null ? "stored" : null,
    confirmed_head: confirmedHead,
    lag_blocks: head === null ? null : head - (state.cursorBlock ?? chain.startBlock - 1),
    lag_seconds: state.cursorBlockTime
      ? Math.max(0, Math.round((Date.now() - state.cursorBlockTime.getTime()) / 1000))
      : null,
    // A lapsed lease stays visible (`expired`) until a run takes the chain over: its holder died without releasing it.
    lease: lease
      ? {
          holder: lease.holder,
          expires_at: iso(lease.expiresAt),
          heartbeat_at: iso(lease.heartbeatAt),
          expired: lease.expiresAt <= now,
          heartbeat_overdue: heartbeatOverdue(lease, now),
        }
      : null,
    writer: writerHealth(
      { ...writer, lastRun: run ? { status: run.status, startedAt: run.startedAt } : undefined },
      deps.rules,
      now,
    ),
    last_run: run
      ? {
          status: run.status,
          trigger: run.trigger,
          started_at: iso(run.startedAt),
          finished_at: iso(run.finishedAt),
          duration_ms: run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null,
          from_block: run.fromBlock,
          to_block: run.toBlock,
          attestations: run.attestations,
          revocations: run.revocations,
          rewound_blocks: run.rewound,
          rpc_requests: run.rpcRequests,
          ...(run.reason ? { reason: run.reason } : {}),
          error: run.error,
        }
      : null,
    last_success_at: iso(runs.lastSuccessAt),
    // Rows that later runs still delete, in batches (lib/sync/deletes.ts): the sum over `deletes`.
    deletes_pending: deniedLeft + pending.reduce((n, d) => n + rowsLeft(d), 0),
    deletes: {
      // rows of schemas no longer indexed (SCHEMA_DENY, SCHEMA_ALLOW), from the count tables
      denied_schemas: { rows_left: deniedLeft },
      // a reorg's orphaned rows: the chain is not indexed past above_block until they are gone
      rewind: rewind
        ? {
            above_block: rewind.aboveBlock,
            rows_total: rewind.rowsTotal,
            rows_left: rowsLeft(rewind),
            started_at: iso(rewind.requestedAt),
          }
        : null,
      // an operator's removals (scripts/remove-proofs.ts)
      removals: removals.map((d) => ({
        id: d.id,
        schema_uid: d.schemaUid,
        uids: d.uids?.length ?? null,
        up_to_block: d.upToBlock,
        rows_total: d.rowsTotal,
        rows_left: rowsLeft(d),
        requested_at: iso(d.requestedAt),
        requested_by: d.requestedBy,
      })),
    },
    // Revocation reconciliation's pass (lib/sync/revocations.ts): where it stands, and when one last completed.
    reconciliation: {
      in_pass: state.reconcileCursor !== null,
      cursor_uid: state.reconcileCursor,
      checked_in_pass: state.reconcileChecked,
      pass_started_at: iso(state.reconcilePassStartedAt),
      last_completed_at: iso(state.reconcileCompletedAt),
      // Non-revoked proofs the pass has yet to read (from the count tables), and the calls that takes at most: each
      // call checks at least one page.
      remaining: toCheck,
      page_size: pageSize,
      calls_left_at_most: Math.ceil(toCheck / pageSize),
    },
  };
}
