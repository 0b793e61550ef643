import { DrizzleQueryError } from "drizzle-orm/errors";
import type { Db } from "../../db/client.js";
import type { SyncStateRow } from "../../db/schema.js";
import { type ChainClient, withRpcSignal } from "../chains/client.js";
import type { ChainConfig } from "../chains/registry.js";
import { errorFields, log } from "../log.js";
import { backfillSchemas, startBackfills } from "./backfill.js";
import { isDeadline } from "./deadline.js";
import { deleteRows, finishRewinds } from "./deletes.js";
import { applyPolicy, discover, loadSchemas } from "./discovery.js";
import { BlockUnknownError, untilKnown } from "./lag.js";
import { getTailLogs, type TailLogs } from "./logs.js";
import { nextRange, type SyncOptions } from "./options.js";
import { redecode } from "./redecode.js";
import { findReorg, readTop } from "./reorg.js";
import { storedBlocks } from "./store/blocks.js";
import {
  acquireLease,
  ensureState,
  heartbeat,
  LeaseLostError,
  recordHead,
  recordSkip,
  releaseLease,
  type Writer,
} from "./store/lease.js";
import { pendingDeletes } from "./store/pending-deletes.js";
import { commitQuiet } from "./store/quiet.js";
import { rewind } from "./store/rewind.js";
import { type AbandonedRun, abandonStaleRuns, finishRun, type RunOutcome, startRun } from "./store/runs.js";
import {
  ChainMovedError,
  indexStream,
  type KnownSchemas,
  liveUids,
  type SchemaOutcome,
  type Stage,
} from "./stream.js";
import { skipReason, type WriterState, writerState } from "./writer-health.js";

export { ChainMovedError } from "./stream.js";

export type Trigger = "cron" | "manual" | "backfill";

/** Rows to delete can only belong to a schema that is off (denied, or removed): none off, no delete to try. */
const hasOffSchemas = (schemas: KnownSchemas) => [...schemas.values()].some((s) => s.state === "off");

export type ChainRunResult = RunOutcome & {
  chain: string;
  chainId: number;
  /** discovery's cursor as the run left it (lib/sync/discovery.ts) */
  schemaCursor: number | null;
  /** what the run did to the chain's schemas (lib/sync/schemas.ts) */
  schemas: SchemaOutcome;
  /** the chain's writer as this run left it (lease, skips in a row): what the cron judges `degraded` by */
  writer: WriterState;
  /** runs of dead writers this run found and marked abandoned */
  abandoned: AbandonedRun[];
  head: number | null;
  confirmedHead: number | null;
  cursor: number | null;
  durationMs: number;
};

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
  /** called after each committed discovery step (tests use it to "kill" a run in the middle of discovery) */
  afterDiscoveryCommit?: (progress: { schemaCursor: number; found: number }) => void | Promise<void>;
  /**
   * Backfill these schemas only (`npm run backfill -- <chain> --schema <uid> [--from <block>]`): they are (re)started
   * from where they begin (or `from`) and indexed alone up to the chain's cursor; no discovery, no step of the chain's
   * own cursor, no re-decoding.
   */
  onlySchemas?: { uids: readonly string[]; from?: number };
};

/**
 * The per-chain state machine of one invocation:
 *   lease → head → reorg check (rewind every cursor) → the operator's schema decisions → discovery: the
 *   SchemaRegistry's `Registered` ranges up to head − confirmations (new location schemas) → the chain's ranges up to
 *   discovery's cursor, each: one eth_getLogs for every live schema → Multicall3 reads → decode by each attestation's
 *   own schema → commit (rows + revocations + block hashes + cursor, one transaction) → schema backfills up to the
 *   chain's cursor → rows of an older decoder decoded again → release.
 * Bounded by a time budget and a block budget; whatever is committed stays committed, so a killed invocation loses
 * at most the batch in flight, and the next one resumes from the cursors.
 */
export function createChainSync(deps: ChainSyncDeps) {
  const { db, chain, client, options, owner } = deps;
  let startedBackfills = false;
  const writerOf: Writer = {
    chainId: chain.chainId,
    owner,
    leaseMs: options.leaseMs,
    statementTimeoutMs: options.statementTimeoutMs,
  };

  async function run(trigger: Trigger): Promise<ChainRunResult> {
    const started = performance.now();
    const startedAt = new Date();
    // The run's deadline: every RPC request carries its signal, every commit gets the time left (deadline.ts).
    const deadline = AbortSignal.timeout(options.deadlineMs);
    writerOf.deadline = Date.now() + options.deadlineMs;
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
    const schemaOutcome: SchemaOutcome = { found: 0, backfilled: 0, joined: [], removed: 0, redecoded: 0 };
    let head: number | null = null;
    let confirmedHead: number | null = null;
    let cursor = state.cursorBlock;
    let schemaCursor = state.schemaCursorBlock;
    let writer = writerState(state);
    let abandoned: AbandonedRun[] = [];
    const work = async () => {
      if (state.paused && trigger === "cron") {
        outcome.status = "skipped";
        outcome.reason = "paused";
      } else {
        await deps.beforeLease?.();
        // The cursors and range sizes come from the row as the lease was taken: another writer may have committed or
        // rewound (and released) since `state` was read, and continuing from an older cursor would skip blocks.
        const taken = await takeLease();
        writer = writerState(taken.row ?? state);
        if (!taken.leased) {
          outcome.status = "skipped";
          outcome.reason = skipReason(writer.lease, new Date());
        } else {
          beat.leased = true;
          const leased = taken.row!;
          cursor = leased.cursorBlock;
          schemaCursor = leased.schemaCursorBlock;
          abandoned = await markAbandoned(runId);
          // The head and the newest stored block (the reorg check) are asked in the same tick: one HTTP request.
          const newest =
            cursor === null && schemaCursor === null ? [] : await storedBlocks(db, chain.chainId, true);
          const topRead = readTop(client, newest);
          head = Number(await client.getBlockNumber({ cacheTime: 0 }));
          confirmedHead = head - chain.confirmations;
          await recordHead(db, chain.chainId, head);
          ({ cursor, schemaCursor } = await handleReorg(
            head,
            cursor,
            schemaCursor,
            outcome,
            newest,
            topRead,
          ));
          const stage = stageContext(started, outcome, schemaOutcome);
          // A rewind's rows go before anything is indexed past its fork (lib/sync/deletes.ts finishRewinds).
          const pending = await pendingDeletes(db, chain.chainId);
          if (!(await finishRewinds(stage, pending))) {
            outcome.status = "partial";
            outcome.reason = "rewind pending";
            return;
          }
          const removals = pending.filter((d) => d.kind === "removal");
          const deletes = (schemas: KnownSchemas) =>
            hasOffSchemas(schemas) || removals.length
              ? deleteRows(stage, hasOffSchemas(schemas), removals)
              : true;
          const schemas = await loadSchemas(db, chain.chainId);
          let complete = true;
          // Near the head, the range's logs of both contracts and its last block's hash, asked together with the
          // operator's schema reads (if any): the second and last HTTP request of a quiet run.
          const tail = deps.onlySchemas
            ? undefined
            : readTail(stage, cursor, schemaCursor, confirmedHead, leased);
          schemaOutcome.removed += await applyPolicy(stage, schemas, cursor);
          if (tail) {
            const got = await tail;
            if (got) stage.tail = got;
          }
          const quiet = stage.tail && stage.tail.logs.length === 0 && stage.tail.toBlock === confirmedHead;
          if (quiet && cursor !== null) {
            // Nothing in the range for either contract: both cursors move in one commit.
            const [from, end] = [cursor + 1, confirmedHead];
            const grown = (size: number | null) =>
              nextRange(options, size ?? options.initialRange, end - from + 1);
            const block = await stage.block(end);
            await commitQuiet(db, {
              ...writerOf,
              block: { number: end, ...block },
              rangeSize: grown(leased.rangeSize),
              schemaRangeSize: grown(leased.schemaRangeSize),
            });
            outcome.fromBlock = from;
            outcome.toBlock = end;
            cursor = schemaCursor = end;
            await deps.afterCommit?.({ cursor, attestations: 0 });
            complete = await deletes(schemas);
          } else if (!deps.onlySchemas) {
            const found = await discover(stage, schemas, {
              cursor: schemaCursor,
              rangeSize: leased.schemaRangeSize,
              target: confirmedHead,
              chainCursor: cursor,
              ...(deps.afterDiscoveryCommit ? { afterCommit: deps.afterDiscoveryCommit } : {}),
            });
            schemaCursor = found.cursor;
            const from = cursor === null ? chain.startBlock : cursor + 1;
            const target = Math.min(confirmedHead, schemaCursor ?? from - 1, from + options.blockBudget - 1);
            const done = await indexStream(stage, schemas, {
              uids: liveUids(schemas),
              from,
              target,
              rangeSize: leased.rangeSize,
            });
            if (done.cursor >= from) cursor = done.cursor;
            const deleted = await deletes(schemas);
            complete = found.complete && done.complete && target >= confirmedHead && deleted;
          } else if (!startedBackfills) {
            // Once per engine: the backfill script's later runs continue the backfill rather than restart it.
            await startBackfills(stage, schemas, deps.onlySchemas, cursor);
            startedBackfills = true;
          }
          complete = (await backfillSchemas(stage, schemas, cursor, deps.onlySchemas?.uids)) && complete;
          if (!deps.onlySchemas) complete = (await redecode(stage, schemas)) && complete;
          if (!complete) outcome.status = "partial";
        }
      }
    };
    const beat = startHeartbeat(runId, started);
    try {
      await withRpcSignal(deadline, () => work());
    } catch (error) {
      // A block the endpoint does not know yet (a lagging node), or a record seen in a log that the chain no longer
      // (or not yet) has: the run stops before writing what depended on it, and the next run continues from the
      // cursor (its reorg check sorts out a real reorg). Waiting, not failing. The deadline too: the step in flight
      // was abandoned whole (its transaction rolled back), and the next run continues from the cursor.
      const stopped = isDeadline(error, deadline);
      outcome.status =
        stopped || error instanceof BlockUnknownError || error instanceof ChainMovedError
          ? "partial"
          : "error";
      if (stopped) outcome.reason = "deadline";
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
      schemaCursor,
      schemas: schemaOutcome,
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
      schema_cursor: schemaCursor,
      attestations: outcome.attestations,
      revocations: outcome.revocations,
      rewound: outcome.rewound,
      schemas_found: schemaOutcome.found,
      backfilled: schemaOutcome.backfilled,
      schemas_joined: schemaOutcome.joined.length ? schemaOutcome.joined : undefined,
      rows_removed: schemaOutcome.removed || undefined,
      redecoded: schemaOutcome.redecoded || undefined,
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

  /** What the stages of one run share (the Stage type, lib/sync/stream.ts). */
  function stageContext(started: number, outcome: RunOutcome, schemaOutcome: SchemaOutcome): Stage {
    const hashes = new Map<number, Promise<{ hash: string; time: Date }>>();
    return {
      db,
      chain,
      client,
      options,
      writer: writerOf,
      outcome,
      schemaOutcome,
      /**
       * The time budget is spent, or the caller asked to stop (both end the run as "partial" at a commit boundary).
       * A lease found taken over by a heartbeat ends the run as an error at once: nothing more may be written.
       */
      outOfBudget: () => {
        if (current.lost)
          throw new LeaseLostError("lease lapsed and was taken over by another writer; run stopped");
        return performance.now() - started > options.timeBudgetMs || (options.shouldStop?.() ?? false);
      },
      budgetLeftMs: () => options.timeBudgetMs - (performance.now() - started),
      block: (number) => {
        let b = hashes.get(number);
        if (!b) {
          b = untilKnown(`block ${number}`, () => client.getBlock({ blockNumber: BigInt(number) })).then(
            (got) => {
              if (!got.hash) throw new ChainMovedError(`block ${number} has no hash`);
              return { hash: got.hash.toLowerCase(), time: new Date(Number(got.timestamp) * 1000) };
            },
          );
          // A failed read is asked again by the next stage that needs the block.
          b.catch(() => hashes.delete(number));
          hashes.set(number, b);
        }
        return b;
      },
      ...(deps.afterCommit ? { afterCommit: deps.afterCommit } : {}),
    };
  }

  /**
   * A run whose two cursors meet, with at most one range of new confirmed blocks: that range's logs of the
   * SchemaRegistry and EAS in one eth_getLogs, and the hash of its last block (the new cursor's), both started now so
   * that they travel in one HTTP request. Discovery and the chain's stream then read from it (Stage.tail). Resolves
   * to undefined when the run is not in that state (catching up: each reads its own ranges).
   */
  function readTail(
    stage: Stage,
    cursor: number | null,
    schemaCursor: number | null,
    target: number,
    leased: SyncStateRow,
  ): Promise<TailLogs | undefined> | undefined {
    if (cursor === null || schemaCursor !== cursor) return undefined;
    const from = cursor + 1;
    const most = Math.min(
      leased.rangeSize ?? options.initialRange,
      leased.schemaRangeSize ?? options.initialRange,
      options.maxRange,
      options.blockBudget,
    );
    if (target < from || target - from + 1 > most) return undefined;
    const logs = getTailLogs(client, {
      registry: chain.schemaRegistry,
      eas: chain.eas,
      fromBlock: from,
      toBlock: target,
    });
    const hash = stage.block(target);
    const both = Promise.all([logs, hash]).then(([l]) => l);
    both.catch(() => {}); // awaited by the run; never unhandled if the run fails before
    return both;
  }

  /** Rewinds every cursor past a reorg (a stored hash no longer canonical); returns the cursors to continue from. */
  async function handleReorg(
    head: number,
    cursor: number | null,
    schemaCursor: number | null,
    outcome: RunOutcome,
    newest: { number: number; hash: string }[],
    topRead: Promise<{ hash: string | null }> | undefined,
  ): Promise<{ cursor: number | null; schemaCursor: number | null }> {
    if (cursor === null && schemaCursor === null) return { cursor, schemaCursor };
    // Every run checks the newest stored hash (one call, read with the head); only a mismatch loads the whole list.
    const reorg = await findReorg(client, head, newest, () => storedBlocks(db, chain.chainId), topRead);
    if (!reorg) return { cursor, schemaCursor };
    const ancestor = reorg.ancestor ?? Math.min(chain.startBlock, chain.schemaStartBlock) - 1;
    const undone = await rewind(db, {
      chainId: chain.chainId,
      owner,
      ancestor,
      startBlock: chain.startBlock,
      schemaStartBlock: chain.schemaStartBlock,
      statementTimeoutMs: options.statementTimeoutMs,
      deadline: writerOf.deadline,
    });
    const back = (c: number | null, start: number) =>
      c === null || c <= ancestor ? c : ancestor < start ? null : ancestor;
    const after = {
      cursor: back(cursor, chain.startBlock),
      schemaCursor: back(schemaCursor, chain.schemaStartBlock),
    };
    outcome.rewound = Math.max(0, Math.max(cursor ?? -1, schemaCursor ?? -1) - ancestor);
    log("warn", "reorg: rewound", {
      chain: chain.name,
      from_cursor: cursor,
      from_schema_cursor: schemaCursor,
      to_block: ancestor,
      // deleted in batches before the chain is indexed past the fork (lib/sync/deletes.ts finishRewinds)
      rows_pending: undone.rows,
      schemas_forgotten: undone.schemasForgotten,
    });
    return after;
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
