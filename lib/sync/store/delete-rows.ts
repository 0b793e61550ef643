import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../../db/client.js";

/**
 * Deletes up to `batch` of a chain's rows that `where` matches, in one statement (so the count tables' statement
 * triggers keep the counts exact after it), and returns how many went: fewer than `batch` means none are left. The
 * caller holds the chain's lease in its transaction (every batched delete: a denied schema, a rewind, a removal).
 */
export async function deleteChainRows(t: Db, chainId: number, where: SQL, batch: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    t,
    sql`with d as (
          delete from location_proofs p
           using (select chain_id, uid from location_proofs where chain_id = ${chainId} and ${where} limit ${batch}) s
           where p.chain_id = s.chain_id and p.uid = s.uid
          returning 1)
        select count(*)::int as n from d`,
  );
  return row?.n ?? 0;
}
