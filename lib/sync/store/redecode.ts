import { sql } from "drizzle-orm";
import { type Db, transactionWithBudget } from "../../../db/client.js";
import type { NewLocationProofRow } from "../../../db/schema.js";
import { budgetMs } from "../deadline.js";
import { holdLease, type Writer } from "./lease.js";
import { DECODED, rowsJson } from "./proof-columns.js";

/**
 * Writes decoded columns again for rows an older decoder wrote (lib/sync/redecode.ts), under the lease. Each row is
 * its key and the columns to set, as one JSON parameter (like inserts).
 */
export async function commitRedecode(
  db: Db,
  w: Writer & { rows: (Partial<NewLocationProofRow> & { uid: string })[] },
): Promise<void> {
  if (w.rows.length === 0) return;
  await transactionWithBudget(db, budgetMs(w), async (tx) => {
    const t = tx as unknown as Db;
    await holdLease(t, w);
    const set = sql.raw(DECODED.map((col) => `${col} = v.${col}`).join(", "));
    await t.execute(sql`
      update location_proofs p set ${set}
        from json_populate_recordset(null::location_proofs, ${rowsJson(w.rows as NewLocationProofRow[])}::json) v
       where p.chain_id = ${w.chainId} and p.uid = v.uid`);
  });
}
