import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import { renderedOnce } from "../proofs/sql-once.js";
import type { TileAddress } from "./web-mercator.js";

/**
 * A proof's world pixel (lib/tiles/web-mercator.ts) in SQL, from its representative point, by the functions
 * proof_tile_wx and proof_tile_wy (db/migrations/0000_baseline.sql): plain arithmetic PostgreSQL has built in (PGlite,
 * PostgreSQL and Neon compute the same), inlined by the planner, and the very expressions that the triggers keeping
 * proof_tile_counts use, so the tiles made from the rows and those made from the counts agree on every point's cell. x
 * is linear in longitude (180 falls on the last column); y is Mercator's, written as atanh(sin φ), which is exactly 0.5
 * at the equator on every math library (ln(tan(π/4 + φ/2)) is not: tan(π/4) rounds below 1), so a proof at latitude 0
 * lies on the tile south of the equator, whose north edge it is. Latitudes beyond the map's limit are clamped to it:
 * such a proof is drawn at the map's top or bottom edge. Both are 2^WORLD_BITS wide.
 */
export const WX: SQL = sql`proof_tile_wx(${p.longitude})`;
export const WY: SQL = sql`proof_tile_wy(${p.latitude})`;

/**
 * The proof's tile key (proof_tile_key): its world pixel's bits, 31 a side, interleaved (y's above x's), so the
 * leading 2z bits are the tile of zoom z. Written exactly as the index location_proofs_tile_key_idx is, so that the
 * planner finds the condition below in it. Null for a proof without a point.
 */
export const TILE_KEY: SQL = renderedOnce(sql`proof_tile_key(${p.longitude}, ${p.latitude})`);
const TILE_KEY_BITS = 62;

/** The bits of x and y interleaved, y's above x's, as the tile key's leading bits are. */
function interleave(x: number, y: number, bits: number): bigint {
  let key = 0n;
  for (let i = bits - 1; i >= 0; i--) key = (key << 2n) | (BigInt((y >> i) & 1) << 1n) | BigInt((x >> i) & 1);
  return key;
}

/** The tile keys of the proofs in the tile, first and last: one range at every zoom. */
export function tileKeyRange({ z, x, y }: TileAddress): [bigint, bigint] {
  const below = BigInt(TILE_KEY_BITS - 2 * z);
  const first = interleave(x, y, z) << below;
  return [first, first + (1n << below) - 1n];
}

/**
 * The proof's point lies in the tile: its tile key is in the tile's range (exactly: the world pixel's leading z bits
 * are the tile's column and row), through the key's index, a range scan in key order.
 */
export function tileCondition(t: TileAddress): SQL {
  const [first, last] = tileKeyRange(t);
  return tileKeyBetween(sql`${String(first)}::int8`, sql`${String(last)}::int8`);
}

/** The proof's tile key lies from `first` to `last` (a key range: a tile's, or a statement's own column of them). */
export const tileKeyBetween = (first: SQL, last: SQL): SQL => sql`${TILE_KEY} between ${first} and ${last}`;
