import { and, eq, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../../db/client.js";
import { type SyncStateRow, syncState } from "../../../db/schema.js";

/** Thrown when another writer took the chain over (our lease expired): the transaction rolls back. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

export async function ensureState(db: Db, chain: { chainId: number; name: string }): Promise<SyncStateRow> {
  await db.insert(syncState).values({ chainId: chain.chainId, chain: chain.name }).onConflictDoNothing();
  const [row] = await db.select().from(syncState).where(eq(syncState.chainId, chain.chainId));
  return row!;
}

/** `now() + ms` in SQL: lease expiries are the database's clock, never a function's. */
export const inMs = (ms: number) => sql`now() + ${`${ms} milliseconds`}::interval`;

/**
 * Takes the chain's lease if it is free, expired or already ours. One UPDATE with the condition in its WHERE: on
 * PostgreSQL a concurrent taker blocks on the row, re-checks the condition after our commit, and gets nothing.
 * Taking it starts the holder's heartbeat and ends the chain's run of skips.
 */
export async function acquireLease(
  db: Db,
  chainId: number,
  owner: string,
  ms: number,
): Promise<SyncStateRow | undefined> {
  const [row] = await db
    .update(syncState)
    .set({
      leaseOwner: owner,
      leaseExpiresAt: inMs(ms),
      leaseHeartbeatAt: sql`now()`,
      leaseSkips: 0,
      skippedSince: null,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(syncState.chainId, chainId),
        sql`(${syncState.leaseOwner} is null or ${syncState.leaseExpiresAt} < now() or ${syncState.leaseOwner} = ${owner})`,
      ),
    )
    .returning();
  return row;
}

/**
 * Counts a run that found the lease held by another, live-looking writer (one more skip in a row, and since when)
 * and returns the row it saw, holder and expiry included. Nothing when the lease is free after all (released or
 * expired since the attempt to take it): the caller tries again instead of reporting a holder that is gone.
 */
export async function recordSkip(db: Db, chainId: number, owner: string): Promise<SyncStateRow | undefined> {
  const [row] = await db
    .update(syncState)
    .set({
      leaseSkips: sql`${syncState.leaseSkips} + 1`,
      skippedSince: sql`coalesce(${syncState.skippedSince}, now())`,
    })
    .where(
      and(
        eq(syncState.chainId, chainId),
        sql`${syncState.leaseOwner} is not null and ${syncState.leaseOwner} <> ${owner} and ${syncState.leaseExpiresAt} >= now()`,
      ),
    )
    .returning();
  return row;
}

/**
 * One heartbeat of a live run: its run row says it is alive and, if it holds the chain's lease, the lease is renewed
 * for another period — one statement, one clock. False when the lease was ours and is not any more (taken over
 * after it lapsed): the run must stop, and its next commit would be refused anyway.
 */
export async function heartbeat(
  db: Db,
  b: { runId: number; chainId: number; owner: string; leaseMs: number },
): Promise<boolean> {
  // A data-modifying WITH runs to completion whether or not the main statement reads it.
  const rows = await queryRows<{ chain_id: number }>(
    db,
    sql`with run as (update sync_runs set heartbeat_at = now() where id = ${b.runId} returning id)
        update sync_state set lease_expires_at = ${inMs(b.leaseMs)}, lease_heartbeat_at = now()
         where chain_id = ${b.chainId} and lease_owner = ${b.owner}
        returning chain_id`,
  );
  return rows.length > 0;
}

export async function releaseLease(db: Db, chainId: number, owner: string): Promise<void> {
  await db
    .update(syncState)
    .set({ leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(syncState.chainId, chainId), eq(syncState.leaseOwner, owner)));
}

export async function recordHead(db: Db, chainId: number, head: number): Promise<void> {
  await db
    .update(syncState)
    .set({ headBlock: head, headCheckedAt: sql`now()` })
    .where(eq(syncState.chainId, chainId));
}

/** Who writes, under which lease and budget: what every write of a run carries. */
export type Writer = {
  chainId: number;
  owner: string;
  leaseMs: number;
  /** statement budget of the write's transaction (SyncOptions.statementTimeoutMs) */
  statementTimeoutMs: number;
  /** the run's deadline (epoch ms): a commit gets at most the time left (lib/sync/deadline.ts budgetMs) */
  deadline?: number;
};

/** Renews the lease inside a write's transaction, or refuses the write: another writer took the chain over. */
export async function holdLease(
  db: Db,
  w: Writer,
  set: Partial<typeof syncState.$inferInsert> = {},
): Promise<void> {
  const held = await db
    .update(syncState)
    .set({ ...set, leaseExpiresAt: inMs(w.leaseMs), leaseHeartbeatAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(syncState.chainId, w.chainId), eq(syncState.leaseOwner, w.owner)))
    .returning({ chainId: syncState.chainId });
  if (held.length === 0) throw new LeaseLostError("lease lost to another writer; nothing written");
}
