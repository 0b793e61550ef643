import { and, eq, type SQL, sql } from "drizzle-orm";
import { unindexed, unindexedBox } from "../../db/index-steering.js";
import { boundsBox, locationProofs as p, representativePoint, spanningBoundsBox } from "../../db/schema.js";
import { circleBox, coversSphere, type Near, withinDistance } from "./near.js";
import { sqlTimestamp } from "./timestamps.js";

/** A bounding box in degrees, CRS84. minLon > maxLon means the box crosses the antimeridian. */
export type Bbox = { minLon: number; minLat: number; maxLon: number; maxLat: number };

/** An inclusive time interval; a missing side is open. */
export type TimeInterval = { start?: Date; end?: Date };

/**
 * The one filter model. The native list, the OGC items, every count and the stats build their WHERE clause from
 * it, so a filter can never mean one thing on one endpoint and another elsewhere. Fields combine with AND.
 */
export type ProofFilter = {
  /**
   * Where the records come from (lib/proofs/source.ts): unset, the on-chain attestations; `offchain`, the published
   * off-chain records; `all`, both. Not a condition of the WHERE clause: the statements read it as their FROM
   * (proofsFrom), and the counts take it into account (lib/proofs/count.ts).
   */
  source?: "offchain" | "all";
  bbox?: Bbox;
  /**
   * The proofs whose representative point lies within `radius` metres (great-circle) of the point (lib/proofs/near.ts);
   * proofs without coordinates never match.
   */
  near?: Near;
  /**
   * What `bbox` is tested against: the geometry's bounds (the native list, the OGC shapes collection; the default)
   * or the representative point (the OGC location-proofs collection, whose features are that point).
   */
  bboxOn?: SpatialTarget;
  /**
   * The rule for proofs without the value a filter tests. Unset (the native API): a bbox never matches a proof
   * without coordinates, a time interval never one without an event time. Set (OGC API - Features Part 1,
   * /req/core/fc-bbox-response C and /req/core/fc-time-response C): bbox also matches the proofs without
   * geometry, and times the proofs without an event time.
   */
  bboxMatchesMissing?: boolean;
  timesMatchMissing?: boolean;
  /** chain names (any of) */
  chains?: string[];
  /** lowercase 0x addresses */
  prover?: string;
  subject?: string;
  /** inclusive intervals on event_timestamp */
  times?: TimeInterval[];
  /** only proofs with (true) or without (false) valid coordinates */
  hasCoordinates?: boolean;
  /** only proofs with (true) or without (false) an event time */
  hasEventTime?: boolean;
  /** revoked proofs are left out unless this is true */
  includeRevoked?: boolean;
  uid?: string;
  /** schema UIDs, lowercase (any of) */
  schemas?: string[];
  /** Location Protocol versions, major.minor (any of) */
  protocolVersions?: string[];
  /** normalised location types of the protocol's vocabulary (any of; lib/location/vocabulary.ts) */
  locationTypes?: string[];
  /** further conditions already compiled to parameterised SQL (e.g. an OGC CQL2 filter) */
  where?: SQL[];
};

export type SpatialTarget = "bounds" | "point";

/** Fields that only qualify another (how a bbox or a time interval is tested), or the default revoked rule. */
const QUALIFIERS = new Set<keyof ProofFilter>([
  "bboxOn",
  "bboxMatchesMissing",
  "timesMatchMissing",
  "includeRevoked",
]);

/**
 * Whether the filter tests nothing but the `allowed` fields (an empty list counts as unset; qualifiers and the revoked
 * rule are always allowed): what decides whether a totals table can answer its count (lib/proofs/totals.ts).
 */
export const testsOnly = (f: ProofFilter, allowed: readonly (keyof ProofFilter)[]): boolean =>
  (Object.keys(f) as (keyof ProofFilter)[]).every((k) => {
    const v = f[k];
    return (
      v === undefined || (Array.isArray(v) && v.length === 0) || QUALIFIERS.has(k) || allowed.includes(k)
    );
  });

/** The box expression the GiST index is built on (db/schema.ts); the query must use the same expression. */
const BOUNDS = boundsBox(p);

/**
 * The same box translated by nothing, an expression no index is built on: a condition on it filters the rows another
 * access path found (see IndexUse).
 */
const UNINDEXED_BOUNDS = unindexedBox(BOUNDS);

/**
 * Which of a filter's conditions a statement may use an index for (all, by default). A page reads a part of many
 * matches by walking its order's index and filtering (the planner, trusting a flat estimate for the GiST condition,
 * would rather fetch a continent's matches and sort them), and a part of few matches through the index of its
 * smallest condition (else it ANDs a small box's GiST scan with an interval's whole range of the order index):
 * lib/proofs/query.ts decides. Counts use every index.
 */
export type IndexUse = { bbox?: boolean; times?: boolean; near?: boolean };

/**
 * The stored bounds (as indexed: boundsBox, or `on` another indexed form of it) overlap the plain box given, edges
 * included.
 */
export const overlaps = (
  minLon: number,
  minLat: number,
  maxLon: number,
  maxLat: number,
  on: SQL = BOUNDS,
): SQL =>
  sql`${on} && box(point(${minLon}::float8, ${minLat}::float8), point(${maxLon}::float8, ${maxLat}::float8))`;

/** Whether a bbox covers the whole globe, so that every proof with coordinates lies in it. */
export const coversWorld = (b: Bbox): boolean =>
  b.minLon <= -180 && b.maxLon >= 180 && b.minLat <= -90 && b.maxLat >= 90;

/**
 * Bounds that intersect the box, through the GiST indexes. Stored bounds are indexed unwrapped (boundsBox): plain
 * ones within [-180, 180], crossing ones as [west, east + 360]. A plain query box is tested as itself, and 360° east
 * of itself against the crossing bounds only (their part east of -180 lies there; a small partial index holds
 * them). A crossing query box, unwrapped the same way to [minLon, maxLon + 360], is tested as that (which meets
 * every crossing bound at its latitudes) and 360° west of it (where plain bounds east of -180 lie). Two index
 * conditions either way.
 */
function boundsIntersect(b: Bbox, on: SQL = BOUNDS): SQL {
  if (b.minLon <= b.maxLon) {
    const crossing = sql`${p.minLon} > ${p.maxLon}`;
    return sql`(${overlaps(b.minLon, b.minLat, b.maxLon, b.maxLat, on)} or (${crossing} and ${overlaps(b.minLon + 360, b.minLat, b.maxLon + 360, b.maxLat, on)}))`;
  }
  const east = b.maxLon + 360;
  return sql`(${overlaps(b.minLon, b.minLat, east, b.maxLat, on)} or ${overlaps(b.minLon - 360, b.minLat, east - 360, b.maxLat, on)})`;
}

/**
 * Bounds that span a 1° grid line (or the antimeridian) and intersect a plain box, for a bbox count's spanning part
 * (lib/proofs/cell-totals.ts): tested on spanningBoundsBox, which only their partial GiST index holds, so the
 * planner cannot choose the main index instead (with the same estimate for both, it may read a whole continent's
 * bounds to keep a few).
 */
export function spanningBoundsIntersect(b: Bbox): SQL {
  const S = spanningBoundsBox(p);
  const crossing = sql`${p.minLon} > ${p.maxLon}`;
  return sql`(${overlaps(b.minLon, b.minLat, b.maxLon, b.maxLat, S)} or (${crossing} and ${overlaps(b.minLon + 360, b.minLat, b.maxLon + 360, b.maxLat, S)}))`;
}

/**
 * The representative point lies in the box (edges included), through the point's GiST index (db/schema.ts,
 * representativePoint): exact, and it holds the order's keys and the coordinates, so a small box's page sorts its
 * matches without reading the table (lib/proofs/query.ts). A box across the antimeridian is its two halves.
 */
function pointInside(b: Bbox): SQL {
  if (b.minLon <= b.maxLon) return pointInBox(b.minLon, b.minLat, b.maxLon, b.maxLat);
  return sql`(${pointInBox(b.minLon, b.minLat, 180, b.maxLat)} or ${pointInBox(-180, b.minLat, b.maxLon, b.maxLat)})`;
}

const POINT = representativePoint(p);
const pointInBox = (minLon: number, minLat: number, maxLon: number, maxLat: number): SQL =>
  sql`${POINT} <@ box(point(${minLon}::float8, ${minLat}::float8), point(${maxLon}::float8, ${maxLat}::float8))`;

/**
 * The representative point's coordinates lie in the box, as a test of rows another condition found (a bbox count's
 * cell strips, lib/proofs/cell-totals.ts): written over coalesce(x, x), which the longitude and latitude btrees
 * (there for sortby) cannot serve — else the planner, trusting its flat estimate for the GiST condition, ANDs in a
 * btree range over a whole continent's longitudes. Not `wrapped`, on the plain
 * columns: the whole test of a page that walks its order's index (bboxCondition unindexed), where the columns'
 * statistics tell the planner how many rows pass (its estimate for coalesce(x, x) is a flat guess that tiny it scanned
 * the table instead).
 */
export function pointCoordinatesIn(b: Bbox, wrapped = true): SQL {
  const x = wrapped ? unindexed(p.longitude) : sql`${p.longitude}`;
  const y = wrapped ? unindexed(p.latitude) : sql`${p.latitude}`;
  const lon =
    b.minLon <= b.maxLon
      ? sql`${x} between ${b.minLon}::float8 and ${b.maxLon}::float8`
      : sql`(${x} >= ${b.minLon}::float8 or ${x} <= ${b.maxLon}::float8)`;
  return sql`(${lon} and ${y} between ${b.minLat}::float8 and ${b.maxLat}::float8)`;
}

/**
 * A proof has no geometry exactly when its bounds are null (the location columns are null together: a check
 * constraint in db/schema.ts); min_lon has a btree, so this is an index condition.
 */
export const noGeometry = sql`${p.minLon} is null`;

/**
 * The proofs whose geometry (its bounds, or its representative point) intersects the box. For a proof without
 * geometry the condition is null (unknown), never true, so its negation (CQL2's NOT S_INTERSECTS) does not match
 * it either. A bbox covering the whole world matches exactly the proofs that have a geometry: stored coordinates
 * always lie within [-180, 180] x [-90, 90], so `min_lon >= -180` says it, and a count uses the small min_lon
 * btree (an index-only scan) instead of visiting every row through the GiST index.
 */
export function bboxCondition(b: Bbox, on: SpatialTarget = "bounds", indexed = true): SQL {
  if (coversWorld(b)) return sql`${p.minLon} >= -180`;
  // Unindexed, the point lying in the box is the whole test (the bounds only found candidates), on the plain
  // columns: their statistics tell the planner how many rows pass, so it walks the order's index for them.
  if (!indexed) return on === "point" ? pointCoordinatesIn(b, false) : boundsIntersect(b, UNINDEXED_BOUNDS);
  return on === "point" ? pointInside(b) : boundsIntersect(b);
}

/**
 * The representative point lies within the circle. Indexed: the circle's bounding box (circleBox) through the bounds'
 * GiST index, as a bbox on the point (the point lies in its geometry's bounds), and the exact distance decides.
 * Unindexed (a page of many matches walking its order's index): the distance alone. A circle that holds the whole
 * sphere matches every proof with coordinates (as a world bbox does).
 */
export function nearCondition(n: Near, indexed = true): SQL {
  if (coversSphere(n)) return sql`${p.minLon} >= -180`;
  if (!indexed) return withinDistance(n);
  return sql`(${boundsIntersect(circleBox(n))} and ${withinDistance(n)})`;
}

function timeCondition(t: TimeInterval, indexed = true): SQL {
  const at = indexed ? sql`${p.eventTimestamp}` : unindexed(p.eventTimestamp);
  const parts: SQL[] = [sql`${at} is not null`];
  if (t.start) parts.push(sql`${at} >= ${sqlTimestamp(t.start)}`);
  if (t.end) parts.push(sql`${at} <= ${sqlTimestamp(t.end)}`);
  return and(...parts)!;
}

export function whereClause(f: ProofFilter, indexed: IndexUse = {}): SQL | undefined {
  const parts: SQL[] = [];
  if (!f.includeRevoked) parts.push(eq(p.revoked, false));
  if (f.uid !== undefined) parts.push(eq(p.uid, f.uid));
  if (f.chains?.length === 1) parts.push(eq(p.chain, f.chains[0]!));
  else if (f.chains && f.chains.length > 1) parts.push(sql`${p.chain} in ${f.chains}`);
  for (const [column, values] of [
    [p.schemaUid, f.schemas],
    [p.protocolVersion, f.protocolVersions],
    [p.locationTypeNormalized, f.locationTypes],
  ] as const) {
    if (values?.length === 1) parts.push(eq(column, values[0]!));
    else if (values && values.length > 1) parts.push(sql`${column} in ${values}`);
  }
  if (f.prover !== undefined) parts.push(eq(p.prover, f.prover));
  if (f.subject !== undefined) parts.push(eq(p.subject, f.subject));
  if (f.hasCoordinates === true) parts.push(sql`${p.longitude} is not null`);
  if (f.hasCoordinates === false) parts.push(noGeometry);
  if (f.hasEventTime !== undefined)
    parts.push(f.hasEventTime ? sql`${p.eventTimestamp} is not null` : sql`${p.eventTimestamp} is null`);
  if (f.bbox) {
    const inBox = bboxCondition(f.bbox, f.bboxOn, indexed.bbox ?? true);
    // Under the OGC rule a world bbox matches every proof: no condition at all.
    if (!f.bboxMatchesMissing) parts.push(inBox);
    else if (!coversWorld(f.bbox)) parts.push(sql`(${noGeometry} or ${inBox})`);
  }
  if (f.near) parts.push(nearCondition(f.near, indexed.near ?? true));
  for (const t of f.times ?? []) {
    const inInterval = timeCondition(t, indexed.times ?? true);
    parts.push(f.timesMatchMissing ? sql`(${p.eventTimestamp} is null or ${inInterval})` : inInterval);
  }
  for (const w of f.where ?? []) parts.push(sql`(${w})`);
  return parts.length ? and(...parts) : undefined;
}
