import type { Bbox } from "../proofs/filter.js";

/**
 * The WebMercatorQuad grid in numbers. A proof's place on it is its world pixel (wx, wy): integers on a grid of
 * 2^32 × 2^32 over the whole square map (about 9 mm at the equator), computed in SQL from longitude and latitude
 * (lib/tiles/tile-sql.ts). Everything else is integer arithmetic on that pixel: the tile at zoom z is
 * (wx >> (32 − z), wy >> (32 − z)), the cluster cell one of 8 × 8 inside it, the position in the tile's 4096 grid
 * the next 12 bits. So a proof lies in exactly one tile of each zoom, and the server, the counts and any test agree
 * on which.
 */

/** Bits of the world pixel grid. */
export const WORLD_BITS = 32;
export const WORLD_SIZE = 2 ** WORLD_BITS;

/** The MVT coordinate grid of a tile: 4096 × 4096 (12 bits), the usual extent. */
export const TILE_EXTENT_BITS = 12;
export const TILE_EXTENT = 2 ** TILE_EXTENT_BITS;

/**
 * The zooms served: 0 (the world in one tile) to 18 (a street, a few hundred metres); the registered tile matrix
 * set defines more, which a client overzooms from 18. 18 + the 12 bits of a tile's grid stay within the 32 bits of
 * the world pixel.
 */
export const MIN_ZOOM = 0;
export const MAX_ZOOM = 18;

/**
 * Web Mercator's latitude limit, where the square map ends (atan(sinh(π)) in degrees). Proofs beyond it are drawn on
 * the top or bottom row of tiles, at the map's edge, so every proof with coordinates is on the map.
 */
export const MAX_LATITUDE = 85.0511287798066;

export type TileAddress = { z: number; x: number; y: number };

/** Latitude of the horizontal grid line at `row` of 2^z rows (row 0 is the north edge). */
export function rowLatitude(row: number, z: number): number {
  const n = Math.PI * (1 - (2 * row) / 2 ** z);
  return (Math.atan(Math.sinh(n)) * 180) / Math.PI;
}

export const columnLongitude = (col: number, z: number): number => (col / 2 ** z) * 360 - 180;

/**
 * The area whose proofs a tile holds, in degrees: west edge included, east excluded (the last column includes
 * 180), north edge included, south excluded (the last row includes -90). The top and bottom rows reach the poles,
 * since proofs beyond Web Mercator's limit are drawn on them.
 */
export function tileBounds({ z, x, y }: TileAddress): Bbox {
  const n = 2 ** z;
  return {
    minLon: columnLongitude(x, z),
    maxLon: columnLongitude(x + 1, z),
    maxLat: y === 0 ? 90 : rowLatitude(y, z),
    minLat: y === n - 1 ? -90 : rowLatitude(y + 1, z),
  };
}
