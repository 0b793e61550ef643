import { sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../../db/client.js";
import { budgetMs } from "../deadline.js";
import { holdLease, type Writer } from "./lease.js";

/** One proof found revoked on chain by reconciliation, and the block its read was made at. */
export type Reconciled = { uid: string; time: Date; readAt: number };

/** The next page of a reconciliation pass: non-revoked proofs after `after` (null: from the first), by uid. */
export async function reconcilePage(
  db: Db,
  chainId: number,
  after: string | null,
  size: number,
): Promise<string[]> {
  const rows = await queryRows<{ uid: string }>(
    db,
    sql`select uid from location_proofs
         where chain_id = ${chainId} and revoked = false and uid > ${after ?? ""}
         order by uid limit ${size}`,
  );
  return rows.map((r) => r.uid);
}

/**
 * Writes one page of reconciliation: the revocations it found and its cursor, in one transaction under the chain's
 * lease (a writer that lost the lease writes nothing). Each revocation records the block the read was made at as
 * its revocation block — the revocation happened at or before it — so a rewind below that block undoes it (and the
 * next pass finds it again if it is still canonical). `last` null ends the pass. Returns how many proofs changed.
 */
export async function commitReconcilePage(
  db: Db,
  w: Writer & { revoked: Reconciled[]; checked: number; last: string | null },
): Promise<number> {
  return transactionWithBudget(db, budgetMs(w), async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, w);
    let changed = 0;
    if (w.revoked.length) {
      const values = sql.join(
        w.revoked.map((r) => sql`(${r.uid}, ${r.time.toISOString()}::timestamptz, ${r.readAt}::bigint)`),
        sql`, `,
      );
      const rows = await queryRows<{ uid: string }>(
        t,
        sql`update location_proofs p
               set revoked = true, revocation_time = v.t, revocation_block_number = v.b
              from (values ${values}) as v(uid, t, b)
             where p.chain_id = ${w.chainId} and p.uid = v.uid and p.revoked = false
            returning p.uid`,
      );
      changed = rows.length;
    }
    await t.execute(
      w.last === null
        ? sql`update sync_state set reconcile_cursor = null, reconcile_checked = 0,
                reconcile_pass_started_at = null, reconcile_completed_at = now()
               where chain_id = ${w.chainId}`
        : sql`update sync_state set reconcile_cursor = ${w.last},
                reconcile_checked = reconcile_checked + ${w.checked},
                reconcile_pass_started_at = coalesce(reconcile_pass_started_at, now())
               where chain_id = ${w.chainId}`,
    );
    return changed;
  });
}
