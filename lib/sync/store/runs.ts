import { and, desc, eq, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../../db/client.js";
import { syncRuns } from "../../../db/schema.js";

export type RunRecord = {
  chainId: number;
  chain: string;
  kind: "sync" | "revocations";
  trigger: string;
  startedAt: Date;
  /** the writer running it (sync runs: the lease owner it uses) */
  owner?: string;
};

export async function startRun(db: Db, r: RunRecord): Promise<number> {
  // A run whose function was killed never finished its row. Sync runs heartbeat and are marked abandoned a lease
  // period after their last beat (abandonStaleRuns); anything else still running after an hour is abandoned here.
  await db.execute(sql`
    update sync_runs set status = 'abandoned', finished_at = now(), error = 'the invocation ended before the run finished'
     where chain_id = ${r.chainId} and status = 'running' and started_at < now() - interval '1 hour'`);
  const [row] = await db
    .insert(syncRuns)
    .values({ ...r, status: "running", heartbeatAt: sql`now()` })
    .returning({ id: syncRuns.id });
  return row!.id;
}

export type AbandonedRun = { id: number; owner: string | null; started_at: Date | string };

/**
 * Sync runs of the chain still `running` whose writer has not shown a sign of life for a lease period (killed, or
 * stalled past its lease) become `abandoned`: by then a lease they held has lapsed too, so the chain is someone
 * else's. A live run renews its heartbeat every third of a period, so it is never caught by this.
 */
export async function abandonStaleRuns(
  db: Db,
  chainId: number,
  exceptRunId: number,
  leaseMs: number,
): Promise<AbandonedRun[]> {
  return queryRows<AbandonedRun>(
    db,
    sql`update sync_runs set status = 'abandoned', finished_at = now(),
          error = 'abandoned: its writer stopped renewing its heartbeat (killed or stalled) and its lease lapsed'
        where chain_id = ${chainId} and kind = 'sync' and status = 'running' and id <> ${exceptRunId}
          and coalesce(heartbeat_at, started_at) < now() - ${`${leaseMs} milliseconds`}::interval
        returning id, owner, started_at`,
  );
}

export type RunOutcome = {
  status: "ok" | "partial" | "skipped" | "error";
  fromBlock: number | null;
  toBlock: number | null;
  attestations: number;
  revocations: number;
  rewound: number;
  rpcRequests: number;
  error: string | null;
  /** why a run was skipped */
  reason?: string | null;
};

/** Closes a run row and keeps the history bounded (the newest 1,000 runs per chain). */
export async function finishRun(db: Db, id: number, chainId: number, o: RunOutcome): Promise<void> {
  await db
    .update(syncRuns)
    .set({ ...o, finishedAt: sql`now()` })
    .where(eq(syncRuns.id, id));
  await db.execute(sql`
    delete from sync_runs where chain_id = ${chainId} and id < (
      select id from sync_runs where chain_id = ${chainId} order by id desc offset 1000 limit 1)`);
}

export async function lastRuns(db: Db, chainId: number) {
  const last = await db
    .select()
    .from(syncRuns)
    .where(and(eq(syncRuns.chainId, chainId), eq(syncRuns.kind, "sync")))
    .orderBy(desc(syncRuns.id))
    .limit(1);
  const success = await db
    .select({ finishedAt: syncRuns.finishedAt })
    .from(syncRuns)
    .where(
      and(
        eq(syncRuns.chainId, chainId),
        eq(syncRuns.kind, "sync"),
        sql`${syncRuns.status} in ('ok', 'partial')`,
      ),
    )
    .orderBy(desc(syncRuns.id))
    .limit(1);
  return { last: last[0], lastSuccessAt: success[0]?.finishedAt ?? null };
}
