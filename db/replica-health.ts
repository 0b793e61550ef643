import { sql } from "drizzle-orm";
import { type DbHandle, queryRows, readDatabases } from "./client.js";

export type ReplicaCheck =
  | { status: "ok"; latency_ms: number; lag_seconds: number }
  | { status: "error"; reason: string };

/**
 * Each replica's state for /health: how far its replay is behind the primary, in seconds of commit time. A replica
 * that has replayed everything it received is 0 behind, however long ago the last commit was.
 */
export async function replicaChecks(timeoutMs: number): Promise<ReplicaCheck[]> {
  let all: Promise<DbHandle>[];
  try {
    all = readDatabases();
  } catch (error) {
    return [{ status: "error", reason: error instanceof Error ? error.message : "misconfigured" }];
  }
  return Promise.all(
    all.map(async (pending): Promise<ReplicaCheck> => {
      const started = performance.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        const handle = await Promise.race([pending, timeout]);
        const [row] = await Promise.race([
          queryRows<{ lag: number | string | null }>(
            handle.db,
            sql`select case
                  when not pg_is_in_recovery() then 0
                  when pg_last_wal_receive_lsn() is not distinct from pg_last_wal_replay_lsn() then 0
                  else greatest(0, extract(epoch from now() - pg_last_xact_replay_timestamp()))
                end as lag`,
          ),
          timeout,
        ]);
        return {
          status: "ok",
          latency_ms: Math.round(performance.now() - started),
          lag_seconds: Math.round(Number(row?.lag ?? 0) * 10) / 10,
        };
      } catch {
        return { status: "error", reason: "the replica did not answer" };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
