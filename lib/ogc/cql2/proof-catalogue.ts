import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../../db/schema.js";
import { bboxCondition, type SpatialTarget } from "../../proofs/filter.js";
import { type PropertyType, proofProperty, QUERYABLE_PROPERTIES } from "../../proofs/properties.js";
import { GEOMETRY_QUERYABLE } from "../vocabulary.js";
import type { BboxLit, GeometryLit, PolygonLit, Position, SpatialOp } from "./ast.js";
import type { Catalogue, Queryable, QueryableType } from "./catalogue.js";

const CQL2_TYPE: Partial<Record<PropertyType, QueryableType>> = {
  string: "string",
  address: "address",
  hash: "address",
  integer: "integer",
  number: "number",
  boolean: "boolean",
  timestamp: "timestamp",
  strings: "strings",
};

/**
 * The queryables of a proofs collection as a catalogue: the queryable properties of lib/proofs/properties.ts, and
 * `geometry`, which is the representative point (location-proofs) or the decoded shape (location-proof-shapes).
 */
export function proofCatalogue(target: SpatialTarget): Catalogue {
  const geometry: Queryable = { sql: sql`${p.minLon}`, type: "geometry" };
  return {
    property(name) {
      if (name === GEOMETRY_QUERYABLE) return geometry;
      const q = proofProperty(name);
      const type = q?.queryable ? CQL2_TYPE[q.type] : undefined;
      return q?.column && type ? { sql: sql`${q.column}`, type } : undefined;
    },
    names: () => [GEOMETRY_QUERYABLE, ...QUERYABLE_PROPERTIES.map((x) => x.name)],
    spatial: (op, _q, literal) => spatial(op, literal, target),
  };
}

/**
 * S_INTERSECTS and S_DISJOINT (its negation: where the feature has no geometry both are unknown). Exact for points
 * (every feature of location-proofs, the point proofs of location-proof-shapes): the GiST index narrows to the
 * literal's box, then the point is tested in the polygon (on its boundary included, in no hole). A line or polygon
 * of location-proof-shapes is tested by its bounding box. The other spatial functions are refused (400) rather
 * than answered approximately. A POLYGON is read in the plane of longitude and latitude (PostGIS's reading): a ring
 * from 170 to -170 spans 340°, not the 20° across the antimeridian; a BBOX with west > east crosses it.
 */
function spatial(op: SpatialOp, literal: BboxLit | GeometryLit, target: SpatialTarget): SQL | string {
  if (op !== "s_intersects" && op !== "s_disjoint")
    return `${op.toUpperCase()} is not supported on this collection (S_INTERSECTS and S_DISJOINT are)`;
  const intersects = intersection(literal, target);
  if (typeof intersects === "string") return intersects;
  return op === "s_intersects" ? intersects : sql`(not ${intersects})`;
}

function intersection(literal: BboxLit | GeometryLit, target: SpatialTarget): SQL | string {
  const any = (parts: (SQL | string)[]): SQL | string => {
    const reason = parts.find((x) => typeof x === "string");
    if (reason !== undefined) return reason;
    return sql`(${sql.join(parts as SQL[], sql` or `)})`;
  };
  switch (literal.kind) {
    case "bbox":
      return bboxCondition(literal, target);
    case "point": {
      const [lon, lat] = literal.coordinates;
      return bboxCondition({ minLon: lon, minLat: lat, maxLon: lon, maxLat: lat }, target);
    }
    case "multipoint":
      return any(literal.coordinates.map((c) => intersection({ kind: "point", coordinates: c }, target)));
    case "polygon":
      return polygonCondition(literal, target);
    case "multipolygon":
      return any(
        literal.coordinates.map((c) => polygonCondition({ kind: "polygon", coordinates: c }, target)),
      );
    case "geometrycollection":
      return any(literal.geometries.map((g) => intersection(g, target)));
    default:
      return "S_INTERSECTS with a LINESTRING is not supported on this collection (POINT, POLYGON, their MULTI forms and BBOX are)";
  }
}

/** PostgreSQL's polygon text form, built from parsed numbers and bound as one parameter. */
const pgPolygon = (ring: Position[]) => `(${ring.map(([x, y]) => `(${x},${y})`).join(",")})`;

function polygonCondition(poly: PolygonLit, target: SpatialTarget): SQL {
  const outer = poly.coordinates[0]!;
  const xs = outer.map(([x]) => x);
  const ys = outer.map(([, y]) => y);
  const prefilter = bboxCondition(
    { minLon: Math.min(...xs), minLat: Math.min(...ys), maxLon: Math.max(...xs), maxLat: Math.max(...ys) },
    target,
  );
  const point = sql`point(${p.longitude}, ${p.latitude})`;
  const holes = poly.coordinates
    .slice(1)
    .map((ring) => sql` and not (${point} <@ ${pgPolygon(ring)}::polygon)`);
  const pointTest = sql`(${point} <@ ${pgPolygon(outer)}::polygon${sql.join(holes)})`;
  if (target === "point") return sql`(${prefilter} and ${pointTest})`;
  // Bounds crossing the antimeridian (west > east) are two boxes: [west, 180] and [-180, east].
  const crossing = sql`${p.minLon} > ${p.maxLon}`;
  const eastEdge = sql`case when ${crossing} then 180 else ${p.maxLon} end`;
  const box = sql`polygon(box(point(${p.minLon}, ${p.minLat}), point(${eastEdge}, ${p.maxLat})))`;
  const westPart = sql`polygon(box(point(-180, ${p.minLat}), point(${p.maxLon}, ${p.maxLat})))`;
  const boundsTest = sql`(${box} && ${pgPolygon(outer)}::polygon or (${crossing} and ${westPart} && ${pgPolygon(outer)}::polygon))`;
  return sql`(${prefilter} and case when ${p.geometry}->>'type' = 'Point' then ${pointTest} else ${boundsTest} end)`;
}
