import { DrizzleQueryError } from "drizzle-orm/errors";
import type { Hex } from "viem";
import type { Db } from "../../db/client.js";
import type { NewLocationProofRow, SyncStateRow } from "../../db/schema.js";
import type { ChainClient } from "../chains/client.js";
import type { ChainConfig } from "../chains/registry.js";
import { errorFields, log } from "../log.js";
import { attestationRow, type OnchainAttestation } from "./decode-attestation.js";
import { type EasEvent, getEasLogs } from "./logs.js";
import type { SyncOptions } from "./options.js";
import { readAttestations } from "./reads.js";
import { findReorg } from "./reorg.js";
import {
  type AbandonedRun,
  abandonStaleRuns,
  acquireLease,
  type Commit,
  commitBatch,
  ensureState,
  finishRun,
  heartbeat,
  LeaseLostError,
  type Revocation,
  type RunOutcome,
  recordHead,
  recordSkip,
  releaseLease,
  rewind,
  startRun,
  storedBlocks,
} from "./store.js";
import { skipReason, type WriterState, writerState } from "./writer-health.js";

export type Trigger = "cron" | "manual" | "backfill";

export type ChainRunResult = RunOutcome & {
  chain: string;
  chainId: number;
  /** the chain's writer as this run left it (lease, skips in a row): what the cron judges `degraded` by */
  writer: WriterState;
  /** runs of dead writers this run found and marked abandoned */
  abandoned: AbandonedRun[];
  head: number | null;
  confirmedHead: number | null;
  cursor: number | null;
  durationMs: number;
};

/** The chain changed under a running batch (an attestation or revocation we saw in a log is gone): retry later. */
export class ChainMovedError extends Error {
  override name = "ChainMovedError";
}

export type ChainSyncDeps = {
  db: Db;
  chain: ChainConfig;
  client: ChainClient;
  options: SyncOptions;
  /** identifies this writer in the lease */
  owner: string;
  /** counts RPC requests, for the run history and the bench */
  requests?: () => number;
  /** called after each committed batch (progress lines; tests use it to "kill" a run between batches) */
  afterCommit?: (progress: { cursor: number; attestations: number }) => void | Promise<void>;
  /** called after the state is first read and before the lease is taken (tests use it to interleave another writer) */
  beforeLease?: () => void | Promise<void>;
};

/**
 * The per-chain state machine of one invocation:
 *   lease → head → reorg check (rewind) → ranges up to head − confirmations, each: eth_getLogs → Multicall3 reads →
 *   decode → commit (rows + revocations + block hashes + cursor, one transaction) → release.
 * Bounded by a time budget and a block budget; whatever is committed stays committed, so a killed invocation loses
 * at most the batch in flight, and the next one resumes from the cursor.
 */
export function createChainSync(deps: ChainSyncDeps) {
  const { db, chain, client, options, owner } = deps;

  async function run(trigger: Trigger): Promise<ChainRunResult> {
    const started = performance.now();
    const startedAt = new Date();
    const requestsAtStart = deps.requests?.() ?? 0;
    const state = await ensureState(db, chain);
    const runId = await startRun(db, {
      chainId: chain.chainId,
      chain: chain.name,
      kind: "sync",
      trigger,
      startedAt,
      owner,
    });
    const outcome: RunOutcome = {
      status: "ok",
      fromBlock: null,
      toBlock: null,
      attestations: 0,
      revocations: 0,
      rewound: 0,
      rpcRequests: 0,
      error: null,
      reason: null,
    };
    let head: number | null = null;
    let confirmedHead: number | null = null;
    let cursor = state.cursorBlock;
    let writer = writerState(state);
    let abandoned: AbandonedRun[] = [];
    const beat = startHeartbeat(runId, started);
    try {
      if (state.paused && trigger === "cron") {
        outcome.status = "skipped";
        outcome.reason = "paused";
      } else {
        await deps.beforeLease?.();
        // The cursor and range size come from the row as the lease was taken: another writer may have committed or
        // rewound (and released) since `state` was read, and continuing from the older cursor would skip blocks.
        const taken = await takeLease();
        writer = writerState(taken.row ?? state);
        if (!taken.leased) {
          outcome.status = "skipped";
          outcome.reason = skipReason(writer.lease, new Date());
        } else {
          beat.leased = true;
          const leasedState = taken.row!;
          cursor = leasedState.cursorBlock;
          abandoned = await markAbandoned(runId);
          head = Number(await client.getBlockNumber({ cacheTime: 0 }));
          confirmedHead = head - chain.confirmations;
          await recordHead(db, chain.chainId, head);
          cursor = await handleReorg(cursor, outcome);
          const done = await indexRanges(cursor, leasedState.rangeSize, confirmedHead, outcome, started);
          cursor = done.cursor;
          if (!done.complete) outcome.status = "partial";
        }
      }
    } catch (error) {
      outcome.status = "error";
      outcome.error = describeError(error);
    } finally {
      await beat.stop();
      if (beat.leased) {
        // A lease left behind lapses within its period; say so, since the next runs skip the chain until then.
        await releaseLease(db, chain.chainId, owner).catch((error) =>
          logFailure("sync: lease not released (it lapses on its own)", error, { chain: chain.name, owner }),
        );
        writer = { ...writer, lease: null };
      }
      outcome.rpcRequests = (deps.requests?.() ?? 0) - requestsAtStart;
      await finishRun(db, runId, chain.chainId, outcome).catch((error) =>
        logFailure("sync: run history not written", error, { chain: chain.name, run_id: runId }),
      );
    }
    const result: ChainRunResult = {
      chain: chain.name,
      chainId: chain.chainId,
      ...outcome,
      writer,
      abandoned,
      head,
      confirmedHead,
      cursor,
      durationMs: Math.round(performance.now() - started),
    };
    log(outcome.status === "error" ? "error" : "info", "sync run", {
      chain: chain.name,
      chain_id: chain.chainId,
      trigger,
      status: outcome.status,
      reason: outcome.reason ?? undefined,
      block_range: outcome.fromBlock === null ? null : [outcome.fromBlock, outcome.toBlock],
      head,
      cursor,
      attestations: outcome.attestations,
      revocations: outcome.revocations,
      rewound: outcome.rewound,
      rpc_requests: outcome.rpcRequests,
      duration_ms: result.durationMs,
      error: outcome.error,
    });
    return result;
  }

  /**
   * Takes the lease, or counts a skip and returns the row naming the holder. A holder that released (or whose
   * lease lapsed) between the attempt and the count is no holder: try again, a few times at most.
   */
  async function takeLease(): Promise<{ leased: boolean; row: SyncStateRow | undefined }> {
    for (let attempt = 0; ; attempt++) {
      const row = await acquireLease(db, chain.chainId, owner, options.leaseMs);
      if (row) return { leased: true, row };
      const held = await recordSkip(db, chain.chainId, owner);
      if (held || attempt >= 2) return { leased: false, row: held };
    }
  }

  /** The runs of writers that died holding (or waiting for) this chain: their lease has lapsed, ours is taken. */
  async function markAbandoned(runId: number): Promise<AbandonedRun[]> {
    const abandoned = await abandonStaleRuns(db, chain.chainId, runId, options.leaseMs);
    if (abandoned.length) {
      log("warn", "sync runs abandoned", {
        chain: chain.name,
        runs: abandoned.map((r) => ({
          id: Number(r.id),
          owner: r.owner,
          started_at: new Date(r.started_at).toISOString(),
        })),
      });
    }
    return abandoned;
  }

  /**
   * While the run is alive it renews its run row and, once it holds the lease, the lease — every heartbeatMs, one
   * beat at a time. A run overrunning its time budget by a whole lease period stops renewing: a wedged writer must not
   * keep the chain forever. A beat that finds the lease gone (lapsed and taken over) stops the run at its next step.
   */
  function startHeartbeat(runId: number, started: number) {
    let timer: NodeJS.Timeout | undefined;
    let inFlight: Promise<void> = Promise.resolve();
    let stopped = false;
    const handle = {
      leased: false,
      lost: false,
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await inFlight;
      },
    };
    const schedule = () => {
      timer = setTimeout(() => {
        if (stopped || performance.now() - started > options.timeBudgetMs + options.leaseMs) return;
        inFlight = heartbeat(db, { runId, chainId: chain.chainId, owner, leaseMs: options.leaseMs })
          .then((held) => {
            if (handle.leased && !held) handle.lost = true;
          })
          // A database blip: the next beat tries again, and the lease outlasts two misses.
          .catch((error) => logFailure("sync: heartbeat failed", error, { chain: chain.name, run_id: runId }))
          .finally(() => {
            if (!stopped) schedule();
          });
      }, options.heartbeatMs);
    };
    schedule();
    current = handle;
    return handle;
  }
  /** The heartbeat of the run in progress (one run at a time per instance). */
  let current: { lost: boolean } = { lost: false };

  /**
   * The time budget is spent, or the caller asked to stop (both end the run as "partial" at a commit boundary). A
   * lease found taken over by a heartbeat ends the run as an error at once: nothing more may be written.
   */
  function outOfBudget(started: number): boolean {
    if (current.lost)
      throw new LeaseLostError("lease lapsed and was taken over by another writer; run stopped");
    return performance.now() - started > options.timeBudgetMs || (options.shouldStop?.() ?? false);
  }

  /** Rewinds past a reorg (stored hash no longer canonical); returns the cursor to continue from. */
  async function handleReorg(cursor: number | null, outcome: RunOutcome): Promise<number | null> {
    if (cursor === null) return null;
    // Every run checks the newest stored hash (one request); only a mismatch loads the whole list.
    const reorg = await findReorg(client, await storedBlocks(db, chain.chainId, true), () =>
      storedBlocks(db, chain.chainId),
    );
    if (!reorg) return cursor;
    const ancestor = reorg.ancestor ?? chain.startBlock - 1;
    const undone = await rewind(db, {
      chainId: chain.chainId,
      owner,
      ancestor,
      startBlock: chain.startBlock,
      statementTimeoutMs: options.statementTimeoutMs,
    });
    outcome.rewound = cursor - ancestor;
    log("warn", "reorg: rewound", {
      chain: chain.name,
      from_cursor: cursor,
      to_block: ancestor,
      rows_deleted: undone.deleted,
      revocations_undone: undone.unrevoked,
    });
    return ancestor < chain.startBlock ? null : ancestor;
  }

  async function indexRanges(
    cursor: number | null,
    storedRangeSize: number | null,
    confirmedHead: number,
    outcome: RunOutcome,
    started: number,
  ): Promise<{ cursor: number | null; complete: boolean }> {
    let from = cursor === null ? chain.startBlock : cursor + 1;
    const target = Math.min(confirmedHead, from + options.blockBudget - 1);
    let rangeSize = Math.max(1, Math.min(storedRangeSize ?? options.initialRange, options.maxRange));
    while (from <= target) {
      if (outOfBudget(started)) return { cursor, complete: false };
      const logs = await getEasLogs(client, {
        eas: chain.eas,
        schemaUid: chain.schemaUid,
        fromBlock: from,
        toBlock: Math.min(from + rangeSize - 1, target),
      });
      const covered = logs.toBlock - from + 1;
      // Remember what the provider accepted; grow again after a clean success (ponder's strategy).
      rangeSize = logs.refused ? covered : Math.min(options.maxRange, Math.max(rangeSize, covered) * 2);
      outcome.fromBlock ??= from;
      cursor = await indexRange(from, logs.toBlock, logs.events, rangeSize, outcome, started);
      outcome.toBlock = cursor;
      if (cursor < logs.toBlock) return { cursor, complete: false }; // the budget ran out inside the range
      from = logs.toBlock + 1;
    }
    return { cursor, complete: target >= confirmedHead };
  }

  /** Commits the events of [from, to] in slices of ≤ commitSize attestations, cut at block boundaries. */
  async function indexRange(
    from: number,
    to: number,
    events: EasEvent[],
    rangeSize: number,
    outcome: RunOutcome,
    started: number,
  ): Promise<number> {
    const slices: EasEvent[][] = [];
    let current: EasEvent[] = [];
    for (let i = 0; i < events.length; i++) {
      current.push(events[i]!);
      const blockEnds = events[i + 1]?.blockNumber !== events[i]!.blockNumber;
      if (blockEnds && current.length >= options.commitSize) {
        slices.push(current);
        current = [];
      }
    }
    slices.push(current);
    // Pipelined: the next slice's reads run while this one commits (the RPC round trips hide behind the database).
    const prepare = (i: number) => {
      const p = prepareSlice(
        slices[i]!,
        i === slices.length - 1 ? to : slices[i]!.at(-1)!.blockNumber,
        rangeSize,
      );
      p.catch(() => {}); // awaited below; never an unhandled rejection if an earlier commit fails first
      return p;
    };
    let cursor = from - 1;
    let next = prepare(0);
    for (let i = 0; i < slices.length; i++) {
      const prepared = await next;
      if (i + 1 < slices.length) next = prepare(i + 1);
      await commitBatch(db, prepared);
      outcome.attestations += prepared.rows.length;
      outcome.revocations += prepared.revocations.length;
      cursor = prepared.cursor;
      await deps.afterCommit?.({ cursor, attestations: outcome.attestations });
      // A busy range stops at a slice boundary (a block boundary) when the budget is spent; the rest is next run's.
      if (i + 1 < slices.length && outOfBudget(started)) break;
    }
    return cursor;
  }

  /** Reads and decodes one slice's attestations: everything its commit needs, without touching the database. */
  async function prepareSlice(events: EasEvent[], end: number, rangeSize: number): Promise<Commit> {
    const uids = [...new Set(events.map((e) => e.uid))];
    // The slice's last block: its hash is the cursor's, checked by the next run's reorg detection.
    const endBlock = events.find((e) => e.blockNumber === end);
    const [reads, block] = await Promise.all([
      uids.length
        ? readAttestations(client, chain.eas, uids as Hex[], {
            batchSize: options.readBatchSize,
            concurrency: options.readConcurrency,
            multicall: chain.multicall3,
          })
        : Promise.resolve(new Map<string, OnchainAttestation | null>()),
      endBlock ? Promise.resolve(undefined) : client.getBlock({ blockNumber: BigInt(end) }),
    ]);
    const rows = new Map<string, NewLocationProofRow>();
    const backfill = new Map<string, NewLocationProofRow>();
    const revocations: Revocation[] = [];
    const blocks = new Map<number, string>();
    let cursorTime: Date | null = block ? new Date(Number(block.timestamp) * 1000) : null;
    for (const e of events) {
      blocks.set(e.blockNumber, e.blockHash);
      const a = reads.get(e.uid);
      // Seen in a log but unknown to EAS now, or a revocation EAS does not have: the chain moved (a reorg beneath
      // our confirmations). Commit nothing of this slice; the next run's reorg check sorts it out.
      if (!a) throw new ChainMovedError(`attestation ${e.uid} from block ${e.blockNumber} is not on chain`);
      const at = {
        blockNumber: e.blockNumber,
        blockHash: e.blockHash,
        txHash: e.txHash,
        logIndex: e.logIndex,
      };
      if (e.kind === "Attested") {
        if (!rows.has(e.uid)) rows.set(e.uid, attestationRow(chain, a, at));
        if (e.blockNumber === end) cursorTime = new Date(Number(a.time) * 1000);
      } else {
        if (a.revocationTime === 0n)
          throw new ChainMovedError(`revocation of ${e.uid} in block ${e.blockNumber} is not on chain`);
        // Backfill an attestation we do not have (attested before the start block) before revoking it.
        if (!rows.has(e.uid)) backfill.set(e.uid, attestationRow(chain, a, at));
        revocations.push({
          uid: e.uid,
          time: new Date(Number(a.revocationTime) * 1000),
          blockNumber: e.blockNumber,
        });
        if (e.blockNumber === end) cursorTime = new Date(Number(a.revocationTime) * 1000);
      }
    }
    const endHash = endBlock?.blockHash ?? block?.hash;
    if (!endHash) throw new ChainMovedError(`block ${end} has no hash`);
    blocks.set(end, endHash);
    return {
      chainId: chain.chainId,
      owner,
      leaseMs: options.leaseMs,
      statementTimeoutMs: options.statementTimeoutMs,
      rows: [...rows.values()],
      backfill: [...backfill.values()],
      revocations,
      blocks: [...blocks].map(([number, hash]) => ({ number, hash })),
      cursor: end,
      cursorTime,
      rangeSize,
    };
  }

  return { run };
}

/**
 * A failure the run goes on despite (bookkeeping after the work, a heartbeat): never silent, one warn line with the
 * error's fields.
 */
export function logFailure(msg: string, error: unknown, fields: Record<string, unknown>): void {
  log("warn", msg, { ...fields, error: errorFields(error) });
}

/** One line for the run history and the response: the error's name, short message and the RPC detail, if any. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Drizzle wraps a driver error in one whose message is the failed SQL and its parameters: report the driver's own
  // message (the cause) instead, so no SQL reaches a status response or the run history.
  if (error instanceof DrizzleQueryError) {
    return error.cause instanceof Error ? describeError(error.cause) : "DatabaseError: query failed";
  }
  const e = error as Error & { shortMessage?: string; details?: string };
  const detail = e.details && !(e.shortMessage ?? "").includes(e.details) ? ` (${e.details})` : "";
  return `${e.name}: ${(e.shortMessage ?? e.message).split("\n")[0]}${detail}`.slice(0, 1000);
}
