import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import { MAX_LATITUDE, type TileAddress, WORLD_BITS, WORLD_SIZE } from "./web-mercator.js";

/**
 * A proof's world pixel (lib/tiles/web-mercator.ts) in SQL, from its representative point: plain arithmetic and
 * functions PostgreSQL has built in, so PGlite, PostgreSQL and Neon compute the same. x is linear in longitude
 * (longitude 180 falls on the last column). y is Mercator's, written as atanh(sin φ), which is exactly 0 at the
 * equator on every math library (ln(tan(π/4 + φ/2)) is not: tan(π/4) rounds below 1), so a proof at latitude 0
 * lies on the tile south of the equator, whose north edge it is. Latitudes beyond the map's limit are clamped to
 * it: such a proof is drawn at the map's top or bottom edge.
 */
const max = String(WORLD_SIZE - 1);
const size = String(WORLD_SIZE);
const WORLD_X = (lon: SQL) =>
  sql`least(greatest(floor((${lon} + 180) / 360 * ${sql.raw(size)}), 0), ${sql.raw(max)})::int8`;
const WORLD_Y = (lat: SQL) =>
  sql`least(greatest(floor((0.5 - atanh(sin(radians(greatest(${sql.raw(`-${MAX_LATITUDE}`)}, least(${sql.raw(String(MAX_LATITUDE))}, ${lat}))))) / (2 * pi())) * ${sql.raw(size)}), 0), ${sql.raw(max)})::int8`;

export const WX: SQL = WORLD_X(sql`${p.longitude}`);
export const WY: SQL = WORLD_Y(sql`${p.latitude}`);

/** The proof's point lies in the tile: its world pixel's leading z bits are the tile's column and row. */
export function tileCondition({ z, x, y }: TileAddress): SQL | undefined {
  if (z === 0) return undefined;
  const shift = sql.raw(String(WORLD_BITS - z));
  return sql`(${WX} >> ${shift}) = ${x} and (${WY} >> ${shift}) = ${y}`;
}
