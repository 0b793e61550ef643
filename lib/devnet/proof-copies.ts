import { type SQL, sql } from "drizzle-orm";
import { type Db, transactionWithBudget } from "../../db/client.js";
import { COLUMNS } from "../sync/store/proof-columns.js";

/** Rows per statement: each its own transaction, so a large copy never holds one long transaction. */
const CHUNK = 50_000;

/**
 * Copies of one stored proof under new uids (`0x` + `uidPrefix`, two hex digits, + the copy's number), for the tests
 * and benchmarks of the sync's batched deletes, which need more rows of one block or schema than a devnet writes
 * quickly. The model is the first row `where` selects, read once per statement. With `spread`, each copy gets a point
 * of its own, so that the GiST indexes see many places as real data would (a million equal bounds would make them
 * degenerate). A bulk load, so with a loader's statement budget; the statement triggers keep the counts exact.
 */
export async function copyProof(
  db: Db,
  copy: { where: SQL; count: number; uidPrefix: string; spread?: boolean },
): Promise<void> {
  const place = copy.spread
    ? sql`jsonb_build_object(
        'location', json_build_object('type', 'Point', 'coordinates', json_build_array(x, y))::text,
        'geometry', json_build_object('type', 'Point', 'coordinates', json_build_array(x, y)),
        'longitude', x, 'latitude', y, 'min_lon', x, 'max_lon', x, 'min_lat', y, 'max_lat', y)`
    : sql`'{}'::jsonb`;
  for (let from = 1; from <= copy.count; from += CHUNK) {
    const to = Math.min(copy.count, from + CHUNK - 1);
    await transactionWithBudget(db, 600_000, (tx) =>
      tx.execute(sql`
        insert into location_proofs (${COLUMNS})
        with p as materialized (select * from location_proofs where ${copy.where} limit 1)
        select ${COLUMNS} from (
          -- The record built once per copy, in a lateral join: \`(f(…)).*\` would call f once for every column.
          select rec.*
            from p,
                 generate_series(${from}::int, ${to}::int) g,
                 lateral (select round((((g::bigint * 7919) % 360000) / 1000.0 - 180)::numeric, 3)::float8 as x,
                                 round((((g::bigint * 104729) % 170000) / 1000.0 - 85)::numeric, 3)::float8 as y) xy,
                 lateral json_populate_record(null::location_proofs,
                   (to_jsonb(p)
                     || jsonb_build_object('uid', ${`0x${copy.uidPrefix}`} || lpad(to_hex(g), 62, '0'))
                     || ${place})::json) rec
        ) r`),
    );
  }
}
