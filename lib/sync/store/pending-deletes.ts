import { and, asc, eq, isNull, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../../db/client.js";
import { type SyncDeleteRow, syncDeletes } from "../../../db/schema.js";
import { budgetMs } from "../deadline.js";
import { deleteChainRows } from "./delete-rows.js";
import { holdLease, type Writer } from "./lease.js";

/** The chain's deletes still to do (db/schema.ts syncDeletes), oldest first. */
export async function pendingDeletes(db: Db, chainId: number): Promise<SyncDeleteRow[]> {
  return db
    .select()
    .from(syncDeletes)
    .where(and(eq(syncDeletes.chainId, chainId), isNull(syncDeletes.completedAt)))
    .orderBy(asc(syncDeletes.id));
}

/** What an operator's removal matches: the chain's rows, or one schema's, or listed uids (one of the two at most). */
export type RemovalTarget = { schemaUid?: string; uids?: readonly string[] };

/**
 * The rows a pending delete still matches. A rewind: every row above its block. A removal: the rows it names, up to
 * the block it was queued at; its uid list is read from its own row (a semi-join on the uid index,
 * and no statement parameter per uid).
 */
function matching(
  d: Pick<SyncDeleteRow, "id" | "kind" | "aboveBlock" | "upToBlock" | "schemaUid" | "uids">,
): SQL {
  if (d.kind === "rewind") return sql`block_number > ${d.aboveBlock}`;
  const parts: SQL[] = [];
  if (d.schemaUid !== null) parts.push(sql`schema_uid = ${d.schemaUid}`);
  if (d.uids !== null) parts.push(sql`uid in (select unnest(uids) from sync_deletes where id = ${d.id})`);
  if (d.upToBlock !== null) parts.push(sql`block_number <= ${d.upToBlock}`);
  return parts.length ? sql.join(parts, sql` and `) : sql`true`;
}

/**
 * Queues an operator's removal (scripts/remove-proofs.ts): the rows it matches now, up to the newest of their blocks,
 * counted once here so that the status shows what remains without counting again. Later rows (newer blocks) are not
 * part of it. Returns the queued row.
 */
export async function queueRemoval(
  db: Db,
  r: RemovalTarget & { chainId: number; requestedBy: string },
): Promise<SyncDeleteRow> {
  return transactionWithBudget(db, 60_000, async (tx) => {
    const t = tx as unknown as Db;
    const [row] = await t
      .insert(syncDeletes)
      .values({
        chainId: r.chainId,
        kind: "removal",
        schemaUid: r.schemaUid ?? null,
        uids: r.uids ? [...r.uids] : null,
        requestedBy: r.requestedBy,
      })
      .returning();
    const [counted] = await queryRows<{ n: number; top: number | null }>(
      t,
      sql`select count(*)::int as n, max(block_number)::int as top from location_proofs
           where chain_id = ${r.chainId} and ${matching(row!)}`,
    );
    const [queued] = await t
      .update(syncDeletes)
      .set({
        rowsTotal: counted?.n ?? 0,
        upToBlock: counted?.top ?? -1,
        ...(counted?.n ? {} : { completedAt: sql`now()` }),
      })
      .where(eq(syncDeletes.id, row!.id))
      .returning();
    return queued!;
  });
}

/**
 * One batch of a pending delete, in one transaction under the chain's lease and within the statement budget: up to
 * `batch` of its rows deleted by one statement (so the count tables' statement triggers keep the counts exact after
 * every batch). A rewind, once its rows are gone, then undoes up to `batch` revocations made above its block, also
 * one statement. The batch that finds nothing more marks it completed. Returns the rows deleted and whether it is
 * done.
 */
export async function deleteBatch(
  db: Db,
  w: Writer & { batch: number; item: SyncDeleteRow },
): Promise<{ deleted: number; done: boolean }> {
  const d = w.item;
  return transactionWithBudget(db, budgetMs(w), async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, w);
    const deleted = await deleteChainRows(t, d.chainId, matching(d), w.batch);
    let done = deleted < w.batch;
    if (done && d.kind === "rewind") {
      const [u] = await queryRows<{ n: number }>(
        t,
        sql`with u as (
              update location_proofs p set revoked = false, revocation_time = null, revocation_block_number = null
                from (select chain_id, uid from location_proofs
                       where chain_id = ${d.chainId} and revocation_block_number > ${d.aboveBlock}
                       limit ${w.batch}) s
               where p.chain_id = s.chain_id and p.uid = s.uid
              returning 1)
            select count(*)::int as n from u`,
      );
      done = (u?.n ?? 0) < w.batch;
    }
    await t
      .update(syncDeletes)
      .set({
        rowsDeleted: sql`${syncDeletes.rowsDeleted} + ${deleted}`,
        ...(done ? { completedAt: sql`now()` } : {}),
      })
      .where(eq(syncDeletes.id, d.id));
    return { deleted, done };
  });
}
