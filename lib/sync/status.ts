import type { Db } from "../../db/client.js";
import type { ChainClient } from "../chains/client.js";
import type { ChainConfig } from "../chains/registry.js";
import { ensureState, lastRuns } from "./store.js";

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

/** One chain's persisted sync state, its live head and lag, its last run and its lease holder. */
export async function chainStatus(deps: { db: Db; chain: ChainConfig; client: ChainClient | undefined }) {
  const { db, chain } = deps;
  const [state, runs, live] = await Promise.all([
    ensureState(db, chain),
    lastRuns(db, chain.chainId),
    liveHead(deps.client),
  ]);
  const head = live ?? state.headBlock;
  const confirmedHead = head === null ? null : head - chain.confirmations;
  const leaseActive =
    state.leaseOwner !== null && state.leaseExpiresAt !== null && state.leaseExpiresAt > new Date();
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
    head_block: head,
    head_source: live !== null ? "live" : head !== null ? "stored" : null,
    confirmed_head: confirmedHead,
    lag_blocks: head === null ? null : head - (state.cursorBlock ?? chain.startBlock - 1),
    lag_seconds: state.cursorBlockTime
      ? Math.max(0, Math.round((Date.now() - state.cursorBlockTime.getTime()) / 1000))
      : null,
    lease: leaseActive ? { holder: state.leaseOwner, expires_at: iso(state.leaseExpiresAt) } : null,
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
          error: run.error,
        }
      : null,
    last_success_at: iso(runs.lastSuccessAt),
  };
}
