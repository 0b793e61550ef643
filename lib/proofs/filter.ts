import { and, eq, type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";

/** A bounding box in degrees, CRS84. minLon > maxLon means the box crosses the antimeridian. */
export type Bbox = { minLon: number; minLat: number; maxLon: number; maxLat: number };

/** An inclusive time interval; a missing side is open. */
export type TimeInterval = { start?: Date; end?: Date };

/**
 * The one filter model. The native list, the OGC items, every count and the stats build their WHERE clause from
 * it, so a filter can never mean one thing on one endpoint and another elsewhere. Fields combine with AND.
 */
export type ProofFilter = {
  bbox?: Bbox;
  /** chain names (any of) */
  chains?: string[];
  /** lowercase 0x addresses */
  prover?: string;
  subject?: string;
  /** inclusive intervals on event_timestamp; proofs without an event time never match a time filter */
  times?: TimeInterval[];
  /** only proofs with (true) or without (false) valid coordinates */
  hasCoordinates?: boolean;
  /** revoked proofs are left out unless this is true */
  includeRevoked?: boolean;
  uid?: string;
  /** further conditions already compiled to parameterised SQL (e.g. an OGC CQL2 filter) */
  where?: SQL[];
};

/** The box expression the GiST index is built on (db/schema.ts); the query must use the same expression. */
const BOX = sql`box(point(${p.minLon}, ${p.minLat}), point(${p.maxLon}, ${p.maxLat}))`;

const boxOverlaps = (minLon: number, minLat: number, maxLon: number, maxLat: number): SQL =>
  sql`${BOX} && box(point(${minLon}::float8, ${minLat}::float8), point(${maxLon}::float8, ${maxLat}::float8))`;

/** Whether a bbox covers the whole globe, so that every proof with coordinates lies in it. */
export const coversWorld = (b: Bbox): boolean =>
  b.minLon <= -180 && b.maxLon >= 180 && b.minLat <= -90 && b.maxLat >= 90;

/**
 * A bbox crossing the antimeridian is two boxes: [minLon, 180] and [-180, maxLon].
 * A bbox covering the whole world matches exactly the proofs that have bounds (stored bounds always lie within
 * [-180, 180] x [-90, 90], and the four bounds are set together): saying so lets a count use the small min_lon
 * btree (an index-only scan) instead of visiting every row through the GiST index.
 */
export function bboxCondition(b: Bbox): SQL {
  if (coversWorld(b)) return sql`${p.minLon} is not null`;
  if (b.minLon <= b.maxLon) return boxOverlaps(b.minLon, b.minLat, b.maxLon, b.maxLat);
  return sql`(${boxOverlaps(b.minLon, b.minLat, 180, b.maxLat)} or ${boxOverlaps(-180, b.minLat, b.maxLon, b.maxLat)})`;
}

function timeCondition(t: TimeInterval): SQL {
  const parts: SQL[] = [sql`${p.eventTimestamp} is not null`];
  if (t.start) parts.push(sql`${p.eventTimestamp} >= ${t.start.toISOString()}::timestamptz`);
  if (t.end) parts.push(sql`${p.eventTimestamp} <= ${t.end.toISOString()}::timestamptz`);
  return and(...parts)!;
}

export function whereClause(f: ProofFilter): SQL | undefined {
  const parts: SQL[] = [];
  if (!f.includeRevoked) parts.push(eq(p.revoked, false));
  if (f.uid !== undefined) parts.push(eq(p.uid, f.uid));
  if (f.chains?.length === 1) parts.push(eq(p.chain, f.chains[0]!));
  else if (f.chains && f.chains.length > 1) parts.push(sql`${p.chain} in ${f.chains}`);
  if (f.prover !== undefined) parts.push(eq(p.prover, f.prover));
  if (f.subject !== undefined) parts.push(eq(p.subject, f.subject));
  if (f.hasCoordinates === true) parts.push(sql`${p.longitude} is not null`);
  if (f.hasCoordinates === false) parts.push(sql`${p.longitude} is null`);
  if (f.bbox) parts.push(bboxCondition(f.bbox));
  for (const t of f.times ?? []) parts.push(timeCondition(t));
  for (const w of f.where ?? []) parts.push(sql`(${w})`);
  return parts.length ? and(...parts) : undefined;
}
