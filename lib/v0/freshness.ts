import { sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import type { ChainConfig } from "../chains/registry.js";

/**
 * Public freshness of the indexed data, per enabled chain, from what the sync engine stored (sync_state and the
 * last successful run in sync_runs): never a live RPC call, never an RPC URL or a lease holder. /health and
 * /api/v0/config show it.
 *
 * A chain is `stale` when its last successful sync run (ok or partial: it made progress) ended more than
 * SYNC_STALE_AFTER_SECONDS ago, and `never_synced` before its first one; either makes /health `degraded`. (The sync
 * engine's own `degraded` in /api/sync/status and the cron's answer is a different, operator-facing rule about the
 * writer, lib/sync/writer-health.ts: a lease holder that stopped heartbeating, runs skipped too long, an abandoned
 * run. Its symptoms show here too once no run succeeds for the threshold.)
 */
export type ChainFreshness = {
  chain: string;
  chain_id: number;
  status: "ok" | "stale" | "never_synced";
  /** the last block whose attestations are all indexed (null before the first) */
  last_indexed_block: number | null;
  last_indexed_block_time: string | null;
  /** the chain head as the last sync run saw it, and when */
  head_block: number | null;
  head_checked_at: string | null;
  /** head_block − last_indexed_block: at least the chain's confirmations while caught up */
  lag_blocks: number | null;
  /** when the last successful sync run finished */
  last_synced_at: string | null;
  seconds_since_sync: number | null;
  /** an operator paused the chain's scheduled sync (POST /api/sync/worker) */
  paused: boolean;
};

type Row = {
  chain_id: number;
  cursor_block: string | number | null;
  cursor_block_time: Date | string | null;
  head_block: string | number | null;
  head_checked_at: Date | string | null;
  paused: boolean | null;
  last_success: Date | string | null;
};

const num = (x: string | number | null): number | null => (x === null ? null : Number(x));
const iso = (x: Date | string | null): string | null => (x === null ? null : new Date(x).toISOString());

export async function chainFreshness(
  db: Db,
  chains: readonly ChainConfig[],
  staleAfterSeconds: number,
  now = Date.now(),
): Promise<ChainFreshness[]> {
  const enabled = chains.filter((c) => c.enabled);
  if (enabled.length === 0) return [];
  const ids = sql.join(
    enabled.map((c) => sql`${c.chainId}`),
    sql`, `,
  );
  // One statement; the last success per chain is one step down the (chain_id, started_at desc) index.
  const rows = await queryRows<Row>(
    db,
    sql`select s.chain_id, s.cursor_block, s.cursor_block_time, s.head_block, s.head_checked_at, s.paused,
      (select r.finished_at from sync_runs r
        where r.chain_id = s.chain_id and r.kind = 'sync' and r.status in ('ok', 'partial')
        order by r.started_at desc limit 1) as last_success
      from sync_state s where s.chain_id in (${ids})`,
  );
  const byId = new Map(rows.map((r) => [Number(r.chain_id), r]));
  return enabled.map((chain) => {
    const row = byId.get(chain.chainId);
    const cursor = num(row?.cursor_block ?? null);
    const head = num(row?.head_block ?? null);
    const lastSuccess = row?.last_success ? new Date(row.last_success) : null;
    const age = lastSuccess ? Math.max(0, Math.round((now - lastSuccess.getTime()) / 1000)) : null;
    return {
      chain: chain.name,
      chain_id: chain.chainId,
      status: age === null ? "never_synced" : age > staleAfterSeconds ? "stale" : "ok",
      last_indexed_block: cursor,
      last_indexed_block_time: iso(row?.cursor_block_time ?? null),
      head_block: head,
      head_checked_at: iso(row?.head_checked_at ?? null),
      lag_blocks: head !== null && cursor !== null ? Math.max(0, head - cursor) : null,
      last_synced_at: lastSuccess ? lastSuccess.toISOString() : null,
      seconds_since_sync: age,
      paused: row?.paused ?? false,
    };
  });
}
