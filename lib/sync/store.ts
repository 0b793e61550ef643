import { and, asc, desc, eq, gt, inArray, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../db/client.js";
import {
  type ChainSchemaRow,
  chainSchemas,
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

/** Who writes, under which lease and budget: what every write of a run carries. */
export type Writer = {
  chainId: number;
  owner: string;
  leaseMs: number;
  /** statement budget of the write's transaction (SyncOptions.statementTimeoutMs) */
  statementTimeoutMs: number;
};

export type Commit = Writer & {
  /**
   * A schema's backfill (lib/sync/backfill.ts): `cursor` is then that schema's backfill cursor, not the chain's, and
   * `joins` says the backfill reached the chain's cursor, so the schema joins the chain's stream.
   */
  schemaBackfill?: { uid: string; joins: boolean };
  rows: NewLocationProofRow[];
  /** Rows for attestations we only know from a Revoked event (their Attested log predates the start block). */
  backfill: NewLocationProofRow[];
  revocations: Revocation[];
  blocks: { number: number; hash: string }[];
  cursor: number;
  cursorTime: Date | null;
  rangeSize: number;
};

/** The columns decoded from an attestation's data (lib/sync/decode-attestation.ts decodedColumns). */
const DECODED = [
  "decode_error",
  "protocol_version",
  "lp_version",
  "location_type_normalized",
  "application_fields",
  "decode_warning",
  "decoder_version",
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
  ...DECODED,
] as const;

const INSERTED = ["chain_id", "uid", ...REFRESHED] as const;
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const COLUMNS = sql.raw(INSERTED.join(", "));
const UPSERT_SET = sql.raw(REFRESHED.map((c) => `${c} = excluded.${c}`).join(", "));

/**
 * Rows travel as one JSON parameter expanded by json_populate_recordset: one statement per batch whatever its size
 * (no bound-parameter limit), and faster than a multi-row VALUES insert on PostgreSQL and PGlite alike.
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
        ...(c.schemaBackfill
          ? {}
          : {
              cursorBlock: c.cursor,
              ...(c.cursorTime ? { cursorBlockTime: c.cursorTime } : {}),
              rangeSize: c.rangeSize,
            }),
        leaseExpiresAt: inMs(c.leaseMs),
        leaseHeartbeatAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(syncState.chainId, c.chainId), eq(syncState.leaseOwner, c.owner)))
      .returning({ chainId: syncState.chainId });
    if (held.length === 0) throw new LeaseLostError("lease lost to another writer; batch not written");
    if (c.schemaBackfill) {
      await tx
        .update(chainSchemas)
        .set({
          backfillCursor: c.cursor,
          ...(c.schemaBackfill.joins ? { state: "live" } : {}),
          updatedAt: sql`now()`,
        })
        .where(
          and(
            eq(chainSchemas.chainId, c.chainId),
            eq(chainSchemas.uid, c.schemaBackfill.uid),
            eq(chainSchemas.state, "backfill"),
          ),
        );
    }
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
    await storeBlocks(tx as unknown as Db, c.chainId, c.blocks);
    if (!c.schemaBackfill) await pruneBlocks(tx as unknown as Db, c.chainId, c.cursor);
  });
}

/** Forgets block hashes too deep for a reorg to reach, below the chain's cursor (the lower of its two cursors). */
async function pruneBlocks(db: Db, chainId: number, cursor: number): Promise<void> {
  await db.execute(
    sql`delete from sync_blocks where chain_id = ${chainId} and block_number < least(${cursor},
          coalesce((select cursor_block from sync_state where chain_id = ${chainId}), ${cursor})) - ${KEEP_BLOCK_HASHES}`,
  );
}

/** Block hashes of a write, upserted: each committed range's last block and the blocks that held its logs. */
async function storeBlocks(
  db: Db,
  chainId: number,
  blocks: { number: number; hash: string }[],
): Promise<void> {
  if (blocks.length === 0) return;
  await db
    .insert(syncBlocks)
    .values(blocks.map((b) => ({ chainId, blockNumber: b.number, blockHash: b.hash })))
    .onConflictDoUpdate({
      target: [syncBlocks.chainId, syncBlocks.blockNumber],
      set: { blockHash: sql.raw("excluded.block_hash") },
    });
}

/** Renews the lease inside a write's transaction, or refuses the write: another writer took the chain over. */
async function holdLease(db: Db, w: Writer, set: Partial<typeof syncState.$inferInsert> = {}): Promise<void> {
  const held = await db
    .update(syncState)
    .set({ ...set, leaseExpiresAt: inMs(w.leaseMs), leaseHeartbeatAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(syncState.chainId, w.chainId), eq(syncState.leaseOwner, w.owner)))
    .returning({ chainId: syncState.chainId });
  if (held.length === 0) throw new LeaseLostError("lease lost to another writer; nothing written");
}

/** The schemas a chain's indexer knows (db/schema.ts chainSchemas). */
export async function chainSchemaRows(db: Db, chainId: number): Promise<ChainSchemaRow[]> {
  return db.select().from(chainSchemas).where(eq(chainSchemas.chainId, chainId)).orderBy(chainSchemas.uid);
}

export type NewChainSchema = typeof chainSchemas.$inferInsert;

/**
 * One discovery step (lib/sync/discovery.ts), like commitBatch: the schemas it found (a schema seen again keeps its
 * state and learns where it was registered), the block hashes, and the discovery cursor, in one transaction under
 * the lease.
 */
export async function commitDiscovery(
  db: Db,
  c: Writer & {
    schemas: NewChainSchema[];
    blocks: { number: number; hash: string }[];
    cursor: number;
    rangeSize: number;
  },
): Promise<void> {
  await transactionWithBudget(db, c.statementTimeoutMs, async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, c, { schemaCursorBlock: c.cursor, schemaRangeSize: c.rangeSize });
    if (c.schemas.length) {
      await t
        .insert(chainSchemas)
        .values(c.schemas)
        .onConflictDoUpdate({
          target: [chainSchemas.chainId, chainSchemas.uid],
          set: {
            registeredBlock: sql`coalesce(${chainSchemas.registeredBlock}, excluded.registered_block)`,
            updatedAt: sql`now()`,
          },
        });
    }
    await storeBlocks(t, c.chainId, c.blocks);
    await pruneBlocks(t, c.chainId, c.cursor);
  });
}

/**
 * Applies the operator's decisions to a chain's schemas (lib/sync/schemas.ts): schemas newly indexed (with where
 * their backfill starts) and newly known, and schemas no longer indexed, whose rows go — one transaction under the
 * lease. Returns how many rows were removed.
 */
export async function applySchemaStates(
  db: Db,
  w: Writer & { upserts: NewChainSchema[]; off: string[] },
): Promise<number> {
  return transactionWithBudget(db, w.statementTimeoutMs, async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, w);
    for (const row of w.upserts) {
      await t
        .insert(chainSchemas)
        .values(row)
        .onConflictDoUpdate({
          target: [chainSchemas.chainId, chainSchemas.uid],
          set: {
            state: row.state,
            backfillFrom: row.backfillFrom ?? null,
            backfillCursor: row.backfillCursor ?? null,
            updatedAt: sql`now()`,
          },
        });
    }
    let removed = 0;
    if (w.off.length) {
      await t
        .update(chainSchemas)
        .set({ state: "off", backfillFrom: null, backfillCursor: null, updatedAt: sql`now()` })
        .where(and(eq(chainSchemas.chainId, w.chainId), inArray(chainSchemas.uid, w.off)));
      const [row] = await queryRows<{ n: number }>(
        t,
        sql`with d as (delete from location_proofs where chain_id = ${w.chainId} and schema_uid in ${w.off} returning 1)
            select count(*)::int as n from d`,
      );
      removed = row?.n ?? 0;
    }
    return removed;
  });
}

/**
 * Writes decoded columns again for rows an older decoder wrote (lib/sync/redecode.ts), under the lease. Each row is
 * its key and the columns to set, as one JSON parameter (like inserts).
 */
export async function commitRedecode(
  db: Db,
  w: Writer & { rows: (Partial<NewLocationProofRow> & { uid: string })[] },
): Promise<void> {
  if (w.rows.length === 0) return;
  await transactionWithBudget(db, w.statementTimeoutMs, async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, w);
    const set = sql.raw(DECODED.map((col) => `${col} = v.${col}`).join(", "));
    await t.execute(sql`
      update location_proofs p set ${set}
        from json_populate_recordset(null::location_proofs, ${rowsJson(w.rows as NewLocationProofRow[])}::json) v
       where p.chain_id = ${w.chainId} and p.uid = v.uid`);
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
 * that happened in orphaned blocks are undone, schemas registered in orphaned blocks are forgotten, and each cursor
 * above it (the chain's, discovery's, a schema's backfill) moves back to it — one transaction. `ancestor` below a
 * cursor's start block means "nothing read" for that cursor (a devnet that was reset). Discovery runs ahead of the
 * chain's cursor, so the ancestor may lie above the chain's cursor, which then stays.
 */
export async function rewind(
  db: Db,
  c: {
    chainId: number;
    owner: string;
    ancestor: number;
    startBlock: number;
    schemaStartBlock: number;
    statementTimeoutMs: number;
  },
): Promise<{ deleted: number; unrevoked: number; schemasForgotten: number }> {
  return transactionWithBudget(db, c.statementTimeoutMs, async (tx) => {
    const t = tx as unknown as Db;
    const cursorAt = (column: SQL, start: number) =>
      c.ancestor < start
        ? sql`null`
        : sql`case when ${column} > ${c.ancestor} then ${c.ancestor}::bigint else ${column} end`;
    const held = await queryRows<{ chain_id: number }>(
      t,
      sql`update sync_state set
            cursor_block = ${cursorAt(sql`cursor_block`, c.startBlock)},
            cursor_block_time = case when cursor_block > ${c.ancestor} or ${c.ancestor < c.startBlock} then null
                                     else cursor_block_time end,
            schema_cursor_block = ${cursorAt(sql`schema_cursor_block`, c.schemaStartBlock)},
            updated_at = now()
          where chain_id = ${c.chainId} and lease_owner = ${c.owner}
          returning chain_id`,
    );
    if (held.length === 0) throw new LeaseLostError("lease lost to another writer; rewind not done");
    const deleted = await queryRows<{ n: number }>(
      t,
      sql`with d as (delete from location_proofs where chain_id = ${c.chainId} and block_number > ${c.ancestor} returning 1)
          select count(*)::int as n from d`,
    );
    const unrevoked = await queryRows<{ n: number }>(
      t,
      sql`with u as (update location_proofs set revoked = false, revocation_time = null, revocation_block_number = null
                      where chain_id = ${c.chainId} and revocation_block_number > ${c.ancestor} returning 1)
          select count(*)::int as n from u`,
    );
    const forgotten = await queryRows<{ n: number }>(
      t,
      sql`with d as (delete from chain_schemas where chain_id = ${c.chainId} and registered_block > ${c.ancestor}
                     returning 1)
          select count(*)::int as n from d`,
    );
    await t.execute(
      sql`update chain_schemas set backfill_cursor = greatest(${c.ancestor}::bigint, backfill_from - 1), updated_at = now()
           where chain_id = ${c.chainId} and state = 'backfill' and backfill_cursor > ${c.ancestor}`,
    );
    await tx
      .delete(syncBlocks)
      .where(and(eq(syncBlocks.chainId, c.chainId), gt(syncBlocks.blockNumber, c.ancestor)));
    return {
      deleted: deleted[0]?.n ?? 0,
      unrevoked: unrevoked[0]?.n ?? 0,
      schemasForgotten: forgotten[0]?.n ?? 0,
    };
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
