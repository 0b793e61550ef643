import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";

/**
 * Proximity: the proofs whose representative point lies within a great-circle distance of a point, without PostGIS.
 * The circle's bounding box (one or two boxes: it may cross the antimeridian, or hold a pole) finds the candidates
 * through the GiST index on the proofs' bounds, as a bbox does (lib/proofs/filter.ts), and the distance itself,
 * computed in SQL by great_circle_m (db/migrations/0000_baseline.sql), decides. Nothing is filtered in Node.
 */

/** The sphere great_circle_m measures on: the WGS84 mean radius R1 = (2a + b) / 3, in metres (PostGIS's sphere). */
export const EARTH_RADIUS_M = 6371008.771415059;

/**
 * The largest radius a request may ask for: half the circumference, rounded up to the metre. Every point of the
 * sphere lies within it.
 */
export const MAX_RADIUS_M = Math.ceil(Math.PI * EARTH_RADIUS_M);

/** A circle on the sphere: its centre in degrees (CRS84) and its radius in metres. */
export type Near = { lon: number; lat: number; radius: number };

/** Whether the circle holds the whole sphere (no point lies farther than half the circumference). */
export const coversSphere = (n: Near): boolean => n.radius >= Math.PI * EARTH_RADIUS_M;

/** Slack added to the circle's box so that floating-point rounding in it never leaves out a point on the circle. */
const SLACK_DEG = 1e-9;

/**
 * The smallest lon/lat box that holds the circle (grown by SLACK_DEG): minLon > maxLon when it crosses the
 * antimeridian; every longitude when it holds a pole (its latitude span then reaches that pole) or is wider than
 * the sphere. The widest longitude of a circle of angular radius δ around latitude φ is asin(sin δ / cos φ) away
 * from its centre, valid whenever the circle holds no pole (then sin δ < cos φ).
 */
export function circleBox(n: Near): { minLon: number; minLat: number; maxLon: number; maxLat: number } {
  const delta = n.radius / EARTH_RADIUS_M;
  const deltaDeg = (delta * 180) / Math.PI + SLACK_DEG;
  const minLat = n.lat - deltaDeg;
  const maxLat = n.lat + deltaDeg;
  if (minLat <= -90 || maxLat >= 90 || delta >= Math.PI / 2) {
    return { minLon: -180, maxLon: 180, minLat: Math.max(-90, minLat), maxLat: Math.min(90, maxLat) };
  }
  const ratio = Math.sin(delta) / Math.cos((n.lat * Math.PI) / 180);
  if (ratio >= 1) return { minLon: -180, maxLon: 180, minLat, maxLat };
  const dLon = (Math.asin(ratio) * 180) / Math.PI + SLACK_DEG;
  if (dLon >= 180) return { minLon: -180, maxLon: 180, minLat, maxLat };
  let minLon = n.lon - dLon;
  let maxLon = n.lon + dLon;
  // Wrapped into [-180, 180]; a box that then has minLon > maxLon crosses the antimeridian, as a bbox may.
  if (minLon < -180) minLon += 360;
  if (maxLon > 180) maxLon -= 360;
  return { minLon, minLat, maxLon, maxLat };
}

/** The distance in metres from the circle's centre to a proof's representative point (null without one). */
export const distanceSql = (n: Near): SQL =>
  sql`great_circle_m(${n.lon}::float8, ${n.lat}::float8, ${p.longitude}, ${p.latitude})`;

/** The representative point lies within the circle (edge included). */
export const withinDistance = (n: Near): SQL => sql`${distanceSql(n)} <= ${n.radius}::float8`;
