import { inArray, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { proofTileCounts as tc } from "../../db/schema.js";
import { type ProofFilter, testsOnly } from "../proofs/filter.js";
import { CLUSTER_GRID_BITS } from "./tile-rules.js";
import type { TileAddress } from "./web-mercator.js";

/**
 * The clusters of a tile from proof_tile_counts (db/schema.ts, db/migrations/0000_baseline.sql): the proofs per cell of
 * the grid and chain, with the sums of their world pixels, kept exact by triggers in every writing transaction. A
 * tile's 64 cluster cells are cells of level z + 3; the table keeps every second level, so a tile reads level z + 3, or
 * level z + 4 and adds up each 2 × 2 of its 256 cells: a few hundred rows at most, where a tile near the world's zoom
 * holds up to every proof, and the uid of a cluster of one too: one query, whatever the tile. Used up to
 * COUNTS_MAX_ZOOM; deeper tiles hold few enough proofs to read them.
 */
export const TILE_COUNT_LEVELS = [3, 5, 7, 9, 11, 13, 15] as const;
export const COUNTS_MAX_ZOOM = 12;

/**
 * Whether the counts answer the tile: a zoom they cover, and a filter that tests nothing but the chain (the counts
 * hold every proof, revoked or not, as the OGC collection does). A time window, a prover or a CQL2 filter is read
 * from the rows.
 */
export const countsAnswer = (filter: ProofFilter, t: TileAddress): boolean =>
  t.z <= COUNTS_MAX_ZOOM && filter.includeRevoked === true && !filter.bbox && testsOnly(filter, ["chains"]);

/**
 * A cluster cell as read: its cell on the world's grid of level z + 3 (gx, gy: the tile's cells are x·8 … x·8 + 7), its proofs, their mean world pixel, and for a cell of one
 * proof its uid (the XOR of the cell's uids, proof_tile_uid_part, db/migrations/0011_tile_counts_per_proof.sql).
 */
export type CellCount = { gx: number; gy: number; n: number; mx: number; my: number; uid: string | null };

const hex64 = (part: SQL) => sql`lpad(to_hex(${part}), 16, '0')`;

export async function cellCounts(db: Db, t: TileAddress, filter: ProofFilter): Promise<CellCount[]> {
  const cellLevel = t.z + CLUSTER_GRID_BITS;
  const level = (TILE_COUNT_LEVELS as readonly number[]).includes(cellLevel) ? cellLevel : cellLevel + 1;
  const per = 2 ** (level - t.z);
  const merge = sql.raw(String(level - cellLevel));
  const parts: SQL[] = [
    sql`${tc.level} = ${level}`,
    sql`${tc.x} between ${t.x * per} and ${t.x * per + per - 1}`,
    sql`${tc.y} between ${t.y * per} and ${t.y * per + per - 1}`,
  ];
  if (filter.chains?.length) parts.push(inArray(tc.chain, filter.chains));
  const rows = await queryRows<CellCount>(
    db,
    sql`select gx, gy, n::float8 as n, (sx / n)::float8 as mx, (sy / n)::float8 as my,
        case when n = 1 then '0x' || ${hex64(sql`u0`)} || ${hex64(sql`u1`)} || ${hex64(sql`u2`)} || ${hex64(sql`u3`)} end as uid
      from (
        select ${tc.x} >> ${merge} as gx, ${tc.y} >> ${merge} as gy, sum(${tc.n}) as n, sum(${tc.sx}) as sx,
          sum(${tc.sy}) as sy, bit_xor(${tc.u0}) as u0, bit_xor(${tc.u1}) as u1, bit_xor(${tc.u2}) as u2,
          bit_xor(${tc.u3}) as u3
        from ${tc} where ${sql.join(parts, sql` and `)} group by 1, 2) c
      where n > 0 order by gy, gx`,
  );
  return rows.map((r) => ({
    gx: Number(r.gx),
    gy: Number(r.gy),
    n: Number(r.n),
    mx: r.mx,
    my: r.my,
    uid: r.uid,
  }));
}
