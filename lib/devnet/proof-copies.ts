import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows, transactionWithBudget } from "../../db/client.js";
import { COLUMNS, INSERTED } from "../sync/store/proof-columns.js";

/** Rows per statement: each its own transaction, so a large copy never holds one long transaction. */
const CHUNK = 50_000;

/**
 * Copies of one stored proof: the first row `where` selects, `count` times, under uids `0x` + `uidPrefix` (two hex
 * digits) + the copy's number. `place`: the model's (default); `spread`, a point of each copy's own, so that the
 * GiST indexes and the tile counts see many places as real data would (a million equal bounds would make them
 * degenerate); `none`, no geometry at all, for tests about the sync that need many rows fast (a proof without a
 * place costs the tile and cell count triggers nothing).
 */
export type ProofCopies = {
  where: SQL;
  count: number;
  uidPrefix: string;
  place?: "model" | "spread" | "none";
};

/** One statement: copies `from`..`to` (numbers of the copies, from 1) of `copy`'s model. */
function insertCopies(copy: ProofCopies, from: number, to: number): SQL {
  // Column by column from the model (no JSON record per copy: a million of those is most of a load's time); the uid
  // and, with `spread`, the place are the copy's own.
  const point = "json_build_object('type', 'Point', 'coordinates', json_build_array(x, y))";
  const own: Partial<Record<(typeof INSERTED)[number], string>> = {
    uid: `'0x${copy.uidPrefix}' || lpad(to_hex(g), 62, '0')`,
    ...(copy.place === "spread"
      ? {
          location: `${point}::text`,
          geometry: `${point}::jsonb`,
          longitude: "x",
          latitude: "y",
          min_lon: "x",
          max_lon: "x",
          min_lat: "y",
          max_lat: "y",
        }
      : copy.place === "none"
        ? Object.fromEntries(
            ["geometry", "longitude", "latitude", "min_lon", "max_lon", "min_lat", "max_lat"].map((c) => [
              c,
              "null",
            ]),
          )
        : {}),
  };
  if (!/^[0-9a-f]{2}$/.test(copy.uidPrefix))
    throw new Error(`uidPrefix: two hex digits, not ${copy.uidPrefix}`);
  const select = sql.raw(INSERTED.map((c) => own[c] ?? `p.${c}`).join(", "));
  return sql`
        insert into location_proofs (${COLUMNS})
        with p as materialized (select * from location_proofs where ${copy.where} limit 1)
        select ${select}
          from p,
               generate_series(${from}::int, ${to}::int) g,
               lateral (select round((((g::bigint * 7919) % 360000) / 1000.0 - 180)::numeric, 3)::float8 as x,
                               round((((g::bigint * 104729) % 170000) / 1000.0 - 85)::numeric, 3)::float8 as y) xy`;
}

/**
 * Copies of one stored proof under new uids (ProofCopies), for the tests and benchmarks of the sync's batched deletes
 * and reconciliation, which need more rows of one block or schema than a devnet writes quickly. The model is read once
 * per statement. A bulk load, so with a loader's statement budget; the statement triggers keep the counts exact.
 */
export async function copyProof(db: Db, copy: ProofCopies): Promise<void> {
  for (let from = 1; from <= copy.count; from += CHUNK) {
    const to = Math.min(copy.count, from + CHUNK - 1);
    await transactionWithBudget(db, 600_000, (tx) => tx.execute(insertCopies(copy, from, to)));
  }
}

/**
 * Several copyProof loads at once for a million rows (PostgreSQL): one transaction that drops the table's secondary
 * indexes, inserts the copies, and builds the indexes again, as bench:scale's loader does (lib/local/synthetic-proofs.ts)
 * — maintaining two dozen indexes row by row is what makes a plain copy of a million slow. The primary key stays,
 * and so do the statement triggers: the counts are exact when it commits.
 */
export async function copyProofsBulk(db: Db, copies: readonly ProofCopies[]): Promise<void> {
  await transactionWithBudget(db, 3_600_000, async (tx) => {
    const t = tx as unknown as Db;
    const indexes = await queryRows<{ indexname: string; indexdef: string }>(
      t,
      sql`select indexname, indexdef from pg_indexes
           where schemaname = current_schema() and tablename = 'location_proofs' and indexname <> 'location_proofs_pkey'`,
    );
    for (const ix of indexes) await t.execute(sql.raw(`drop index "${ix.indexname}"`));
    for (const copy of copies)
      for (let from = 1; from <= copy.count; from += CHUNK)
        await t.execute(insertCopies(copy, from, Math.min(copy.count, from + CHUNK - 1)));
    await t.execute(sql`set local maintenance_work_mem = '256MB'`);
    for (const ix of indexes) await t.execute(sql.raw(ix.indexdef));
  });
}
