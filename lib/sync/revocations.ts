import { randomUUID } from "node:crypto";
import type { Hex } from "viem";
import type { Db } from "../../db/client.js";
import { type ChainClient, withRpcSignal } from "../chains/client.js";
import type { ChainConfig } from "../chains/registry.js";
import { log } from "../log.js";
import { describeError, logFailure } from "./chain-sync.js";
import { isDeadline } from "./deadline.js";
import { untilKnown } from "./lag.js";
import type { SyncOptions } from "./options.js";
import { readAttestations } from "./reads.js";
import { acquireLease, ensureState, releaseLease } from "./store/lease.js";
import { commitReconcilePage, type Reconciled, reconcilePage } from "./store/reconcile.js";
import { finishRun, startRun } from "./store/runs.js";

export type ReconcileResult = {
  chain: string;
  status: "ok" | "partial" | "skipped" | "error";
  /** stored non-revoked proofs compared with the chain by this call */
  checked: number;
  /** proofs found revoked on chain and marked revoked */
  changed: number;
  /** stored proofs EAS does not know (should be none) */
  missing: number;
  /** true when this call finished a pass over every proof; false: call again, it continues where this one stopped */
  complete: boolean;
  blockNumber: number | null;
  durationMs: number;
  /** why nothing was done (the chain's lease is held by a sync run), or "deadline": the run stopped at its deadline */
  reason?: string;
  error?: string;
};

/** Proofs per page: one read (Multicall3 batches) and one transaction each. */
export const RECONCILE_PAGE = 1_000;

/**
 * Revocation reconciliation: every stored, non-revoked proof of the chain is read back from EAS (Multicall3
 * batches, at the confirmed head) and marked revoked when EAS says so. Revoked events already keep the flag current;
 * this is the on-demand safety net (e.g. after a gap in indexing). A pass pages by uid from its own persisted cursor
 * (sync_state.reconcile_cursor), each page written with the cursor in one transaction under the chain's lease, so
 * calls continue one another: every call checks at least one page, and a pass over N proofs ends within
 * ceil(N / page size) calls (far fewer in practice: pages fit the time budget by the dozen). Like a sync run it has a
 * deadline (SyncOptions.deadlineMs): every RPC request and every page's commit gets the time left, and a call stops
 * early, as `partial` with reason "deadline", rather than being killed.
 */
export async function reconcileRevocations(deps: {
  db: Db;
  chain: ChainConfig;
  client: ChainClient;
  options: SyncOptions;
  trigger: string;
  /** counts RPC requests, for the run history (as in a sync run) */
  requests?: () => number;
}): Promise<ReconcileResult> {
  const { db, chain, client, options } = deps;
  const pageSize = options.reconcilePageSize ?? RECONCILE_PAGE;
  const started = performance.now();
  const requestsAtStart = deps.requests?.() ?? 0;
  const owner = `reconcile:${randomUUID()}`;
  // The run's deadline, as a sync run's (lib/sync/deadline.ts): every RPC request carries its signal, every page's
  // commit gets at most the time left.
  const deadline = AbortSignal.timeout(options.deadlineMs);
  const writer = {
    chainId: chain.chainId,
    owner,
    leaseMs: options.leaseMs,
    statementTimeoutMs: options.statementTimeoutMs,
    deadline: Date.now() + options.deadlineMs,
  };
  await ensureState(db, chain);
  const runId = await startRun(db, {
    chainId: chain.chainId,
    chain: chain.name,
    kind: "revocations",
    trigger: deps.trigger,
    startedAt: new Date(),
    owner,
  });
  const result: ReconcileResult = {
    chain: chain.name,
    status: "ok",
    checked: 0,
    changed: 0,
    missing: 0,
    complete: false,
    blockNumber: null,
    durationMs: 0,
  };
  let leased = false;
  const work = async () => {
    const state = await acquireLease(db, chain.chainId, owner, options.leaseMs);
    if (!state) {
      result.status = "skipped";
      result.reason = "lease held by another writer";
    } else {
      leased = true;
      const blockNumber = (await client.getBlockNumber({ cacheTime: 0 })) - BigInt(chain.confirmations);
      result.blockNumber = Number(blockNumber);
      let after = state.reconcileCursor;
      for (;;) {
        // One uid more than a page: whether another page follows, so that a pass whose proofs fill its last page
        // exactly ends with that page, and a pass over N proofs takes ceil(N / page size) pages, never one more.
        const read = await reconcilePage(db, chain.chainId, after, pageSize + 1);
        const page = read.slice(0, pageSize);
        const reads = page.length
          ? await untilKnown("reconciliation reads", () =>
              readAttestations(client, chain.eas, page as Hex[], {
                batchSize: options.readBatchSize,
                concurrency: options.readConcurrency,
                blockNumber,
                multicall: chain.multicall3,
              }),
            )
          : new Map();
        const revoked: Reconciled[] = [];
        for (const uid of page) {
          const a = reads.get(uid);
          if (a === null || a === undefined) result.missing++;
          else if (a.revocationTime !== 0n)
            revoked.push({
              uid,
              time: new Date(Number(a.revocationTime) * 1000),
              readAt: Number(blockNumber),
            });
        }
        const last = read.length > pageSize ? page.at(-1)! : null;
        result.changed += await commitReconcilePage(db, { ...writer, revoked, checked: page.length, last });
        result.checked += page.length;
        after = last;
        await options.afterBatch?.({ kind: "reconcile", rows: page.length, done: last === null });
        if (last === null) {
          result.complete = true;
          break;
        }
        // At least one page per call, so that calls always make progress; then the time budget decides.
        if (performance.now() - started > options.timeBudgetMs || options.shouldStop?.()) break;
      }
      if (!result.complete) result.status = "partial";
    }
  };
  try {
    await withRpcSignal(deadline, work);
  } catch (error) {
    // Stopped at the deadline: the page in flight was abandoned whole (its transaction rolled back or never begun),
    // and the next call continues from the cursor the last page left.
    const stopped = isDeadline(error, deadline);
    result.status = stopped ? "partial" : "error";
    if (stopped) result.reason = "deadline";
    result.error = describeError(error);
  } finally {
    if (leased)
      await releaseLease(db, chain.chainId, owner).catch((error) =>
        logFailure("revocation reconciliation: lease not released (it lapses on its own)", error, {
          chain: chain.name,
          owner,
        }),
      );
  }
  result.durationMs = Math.round(performance.now() - started);
  await finishRun(db, runId, chain.chainId, {
    status: result.status,
    fromBlock: null,
    toBlock: result.blockNumber,
    attestations: result.checked,
    revocations: result.changed,
    rewound: 0,
    rpcRequests: (deps.requests?.() ?? 0) - requestsAtStart,
    error: result.error ?? null,
    reason: result.reason ?? null,
  }).catch((error) =>
    logFailure("revocation reconciliation: run history not written", error, {
      chain: chain.name,
      run_id: runId,
    }),
  );
  log(result.status === "error" ? "error" : "info", "revocation reconciliation", {
    chain: chain.name,
    status: result.status,
    checked: result.checked,
    changed: result.changed,
    missing: result.missing,
    complete: result.complete,
    duration_ms: result.durationMs,
    error: result.error,
  });
  return result;
}
