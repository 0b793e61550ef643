import { and, eq, sql } from "drizzle-orm";
import { type Db, transactionWithBudget } from "../../../db/client.js";
import { chainSchemas, type NewLocationProofRow, syncState } from "../../../db/schema.js";
import { budgetMs } from "../deadline.js";
import { pruneBlocks, storeBlocks } from "./blocks.js";
import { inMs, LeaseLostError, type Writer } from "./lease.js";
import { COLUMNS, rowsJson, UPSERT_SET } from "./proof-columns.js";

export type Revocation = { uid: string; time: Date | null; blockNumber: number };

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

/**
 * Writes one batch and moves the cursor in the same transaction: rows (ON CONFLICT: re-indexing is idempotent),
 * revocations, block hashes, cursor. The lease is checked first, inside the transaction, so a writer whose lease was
 * taken over writes nothing.
 */
export async function commitBatch(db: Db, c: Commit): Promise<void> {
  await transactionWithBudget(db, budgetMs(c), async (tx) => {
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
