import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../db/client.js";
import {
  type NewLocationProofRow,
  type SyncStateRow,
  syncBlocks,
  syncRuns,
  syncState,
} from "../../db/schema.js";

/** Thrown when another writer took the chain over (our lease expired): the transaction rolls back. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/** Block hashes older than this many blocks behind the cursor are pruned: no reorg reaches that deep. */
const KEEP_BLOCK_HASHES = 50_000;

export async function ensureState(db: Db, chain: { chainId: number; name: string }): Promise<SyncStateRow> {
  await db.insert(syncState).values({ chainId: chain.chainId, chain: chain.name }).onConflictDoNothing();
  const [row] = await db.select().from(syncState).where(eq(syncState.chainId, chain.chainId));
  return row!;
}

/** `now() + ms` in SQL: lease expiries are the database's clock, never a function's. */
const inMs = (ms: number) => sql`now() + ${`${ms} milliseconds`}::interval`;

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

export type Revocation = { uid: string; time: Date | null; blockNumber: number };

export type Commit = {
  chainId: number;
  owner: string;
  leaseMs: number;
  /** statement budget of the commit's transaction (SyncOptions.statementTimeoutMs) */
  statementTimeoutMs: number;
  rows: NewLocationProofRow[];
  /** Rows for attestations we only know from a Revoked event (their Attested log predates the start block). */
  backfill: NewLocationProofRow[];
  revocations: Revocation[];
  blocks: { number: number; hash: string }[];
  cursor: number;
  cursorTime: Date | null;
  rangeSize: number;
};

/** Columns an idempotent re-index may refresh; revocation state is only ever set by revocations (or undone by a rewind). */
const REFRESHED = [
  "chain",
  "schema_uid",
  "prover",
  "subject",
  "attestation_time",
  "expiration_time",
  "revocable",
  "ref_uid",
  "block_number",
  "block_hash",
  "tx_hash",
  "log_index",
  "data",
  "decode_error",
  "event_timestamp",
  "event_timestamp_raw",
  "srs",
  "location_type",
  "location",
  "recipe_type",
  "recipe_payload",
  "media_type",
  "media_data",
  "memo",
  "geometry",
  "longitude",
  "latitude",
  "min_lon",
  "min_lat",
  "max_lon",
  "max_lat",
] as const;

const INSERTED = ["chain_id", "uid", ...REFRESHED] as const;
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const COLUMNS = sql.raw(INSERTED.join(", "));
const UPSERT_SET = sql.raw(REFRESHED.map((c) => `${c} = excluded.${c}`).join(", "));

/**
 * Rows travel as one JSON parameter expanded by json_populate_recordset: one statement per batch whatever its size
 * (no 65,535-parameter limit), and 2–3× faster than a multi-row VALUES insert on PostgreSQL and PGlite alike.
 */
function rowsJson(rows: NewLocationProofRow[]): string {
  return JSON.stringify(
    rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [snake(k), v]))),
  );
}

/**
 * Writes one batch and moves the cursor in the same transaction: rows (ON CONFLICT: re-indexing is idempotent),
 * revocations, block hashes, cursor. The lease is checked first, inside the transaction, so a writer whose lease was
 * taken over writes nothing.
 */
export async function commitBatch(db: Db, c: Commit): Promise<void> {
  await transactionWithBudget(db, c.statementTimeoutMs, async (tx) => {
    const held = await tx
      .update(syncState)
      .set({
        cursorBlock: c.cursor,
        ...(c.cursorTime ? { cursorBlockTime: c.cursorTime } : {}),
        rangeSize: c.rangeSize,
        leaseExpiresAt: inMs(c.leaseMs),
        leaseHeartbeatAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(syncState.chainId, c.chainId), eq(syncState.leaseOwner, c.owner)))
      .returning({ chainId: syncState.chainId });
    if (held.length === 0) throw new LeaseLostError("lease lost to another writer; batch not written");
    if (c.rows.length) {
      await tx.execute(sql`
        insert into location_proofs (${COLUMNS})
        select ${COLUMNS} from json_populate_recordset(null::location_proofs, ${rowsJson(c.rows)}::json)
        on conflict (chain_id, uid) do update set ${UPSERT_SET}`);
    }
    if (c.backfill.length) {
      await tx.execute(sql`
        insert into location_proofs (${COLUMNS})
        select ${COLUMNS} from json_populate_recordset(null::location_proofs, ${rowsJson(c.backfill)}::json)
        on conflict (chain_id, uid) do nothing`);
    }
    if (c.revocations.length) {
      const values = sql.join(
        c.revocations.map(
          (r) => sql`(${r.uid}, ${r.time?.toISOString() ?? null}::timestamptz, ${r.blockNumber}::bigint)`,
        ),
        sql`, `,
      );
      await tx.execute(sql`
        update location_proofs p
           set revoked = true, revocation_time = v.t, revocation_block_number = v.b
          from (values ${values}) as v(uid, t, b)
         where p.chain_id = ${c.chainId} and p.uid = v.uid`);
    }
    if (c.blocks.length) {
      await tx
        .insert(syncBlocks)
        .values(c.blocks.map((b) => ({ chainId: c.chainId, blockNumber: b.number, blockHash: b.hash })))
        .onConflictDoUpdate({
          target: [syncBlocks.chainId, syncBlocks.blockNumber],
          set: { blockHash: sql.raw("excluded.block_hash") },
        });
    }
    await tx.execute(
      sql`delete from sync_blocks where chain_id = ${c.chainId} and block_number < ${c.cursor - KEEP_BLOCK_HASHES}`,
    );
  });
}

/** Stored block hashes, oldest first, for reorg detection; `newestOnly` for the cheap check of every run. */
export async function storedBlocks(
  db: Db,
  chainId: number,
  newestOnly = false,
): Promise<{ number: number; hash: string }[]> {
  const query = db
    .select({ number: syncBlocks.blockNumber, hash: syncBlocks.blockHash })
    .from(syncBlocks)
    .where(eq(syncBlocks.chainId, chainId));
  if (newestOnly) return query.orderBy(desc(syncBlocks.blockNumber)).limit(1);
  return query.orderBy(asc(syncBlocks.blockNumber));
}

/**
 * Undoes everything above `ancestor` (the newest block still canonical): rows of orphaned blocks go, revocations
 * that happened in orphaned blocks are undone, and the cursor moves back — one transaction. `ancestor` below the
 * start block means "nothing indexed" (a devnet that was reset).
 */
export async function rewind(
  db: Db,
  c: { chainId: number; owner: string; ancestor: number; startBlock: number; statementTimeoutMs: number },
): Promise<{ deleted: number; unrevoked: number }> {
  return transactionWithBudget(db, c.statementTimeoutMs, async (tx) => {
    const held = await tx
      .update(syncState)
      .set({
        cursorBlock: c.ancestor < c.startBlock ? null : c.ancestor,
        cursorBlockTime: null,
        updatedAt: sql`now()`,
      })
      .where(and(eq(syncState.chainId, c.chainId), eq(syncState.leaseOwner, c.owner)))
      .returning({ chainId: syncState.chainId });
    if (held.length === 0) throw new LeaseLostError("lease lost to another writer; rewind not done");
    const deleted = await queryRows<{ n: number }>(
      tx as unknown as Db,
      sql`with d as (delete from location_proofs where chain_id = ${c.chainId} and block_number > ${c.ancestor} returning 1)
          select count(*)::int as n from d`,
    );
    const unrevoked = await queryRows<{ n: number }>(
      tx as unknown as Db,
      sql`with u as (update location_proofs set revoked = false, revocation_time = null, revocation_block_number = null
                      where chain_id = ${c.chainId} and revocation_block_number > ${c.ancestor} returning 1)
          select count(*)::int as n from u`,
    );
    await tx
      .delete(syncBlocks)
      .where(and(eq(syncBlocks.chainId, c.chainId), gt(syncBlocks.blockNumber, c.ancestor)));
    return { deleted: deleted[0]?.n ?? 0, unrevoked: unrevoked[0]?.n ?? 0 };
  });
}

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
