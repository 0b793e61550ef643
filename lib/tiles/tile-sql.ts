import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import { type TileAddress, WORLD_BITS } from "./web-mercator.js";

/**
 * A proof's world pixel (lib/tiles/web-mercator.ts) in SQL, from its representative point, by the functions
 * proof_tile_wx and proof_tile_wy of migration 0012: plain arithmetic PostgreSQL has built in (PGlite, PostgreSQL
 * and Neon compute the same), inlined by the planner, and the very expressions that the triggers keeping
 * proof_tile_counts use, so the tiles made from the rows and those made from the counts agree on every point's
 * cell. x is linear in longitude (180 falls on the last column); y is Mercator's, written as atanh(sin φ), which is
 * exactly 0.5 at the equator on every math library (ln(tan(π/4 + φ/2)) is not: tan(π/4) rounds below 1), so a
 * proof at latitude 0 lies on the tile south of the equator, whose north edge it is. Latitudes beyond the map's
 * limit are clamped to it: such a proof is drawn at the map's top or bottom edge. Both are 2^WORLD_BITS wide.
 */
export const WX: SQL = sql`proof_tile_wx(${p.longitude})`;
export const WY: SQL = sql`proof_tile_wy(${p.latitude})`;

/** The proof's point lies in the tile: its world pixel's leading z bits are the tile's column and row. */
export function tileCondition({ z, x, y }: TileAddress): SQL | undefined {
  if (z === 0) return undefined;
  const shift = sql.raw(String(WORLD_BITS - z));
  return sql`(${WX} >> ${shift}) = ${x} and (${WY} >> ${shift}) = ${y}`;
}
