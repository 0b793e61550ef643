import { sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";

/**
 * count(*) against the count tables (the statement triggers keep them), for one schema and for the whole table: what
 * the batched deletes must keep equal after every batch. `counted_total` is the total's own table, `schema_total`
 * the per-schema table added up.
 */
export async function schemaCounts(
  db: Db,
  schemaUid: string,
): Promise<{ actual: number; counted: number; total: number; counted_total: number; schema_total: number }> {
  const [row] = await queryRows<{
    actual: number;
    counted: number;
    total: number;
    counted_total: number;
    schema_total: number;
  }>(
    db,
    sql`select (select count(*)::int from location_proofs where schema_uid = ${schemaUid}) as actual,
               (select coalesce(sum(n), 0)::int from proof_schema_counts where schema_uid = ${schemaUid}) as counted,
               (select count(*)::int from location_proofs) as total,
               (select coalesce(sum(n), 0)::int from proof_counts) as counted_total,
               (select coalesce(sum(n), 0)::int from proof_schema_counts) as schema_total`,
  );
  return row!;
}
