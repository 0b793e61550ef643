import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { locationProofs as p } from "../../../db/schema.js";
import { bboxCondition, type SpatialTarget } from "../../proofs/filter.js";
import { type PropertyType, proofProperty, QUERYABLE_PROPERTIES } from "../../proofs/properties.js";
import { GEOMETRY_QUERYABLE } from "../vocabulary.js";
import type { BboxLit, GeometryLit, PolygonLit, SpatialOp } from "./ast.js";
import type { Catalogue, Queryable, QueryableType } from "./catalogue.js";
import { literalBounds, planarPredicate, unwrappedPredicate } from "./spatial.js";

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

const DIALECT = new PgDialect();

/**
 * A column as the SQL text drizzle renders for it (`"location_proofs"."block_number"`), rendered once: a filter
 * names columns hundreds of times, and text costs nothing to render again, where a column is looked at anew by
 * every query that holds it.
 */
const columnText = (column: AnyColumn): SQL => sql.raw(DIALECT.sqlToQuery(sql`${column}`).sql);

/**
 * The queryables of a proofs collection as a catalogue: the queryable properties of lib/proofs/properties.ts, and
 * `geometry`, which is the representative point (location-proofs) or the decoded shape (location-proof-shapes).
 */
export function proofCatalogue(target: SpatialTarget): Catalogue {
  // Built once: every filter asks for its properties, often for the same one many times.
  const queryables = new Map<string, Queryable>([
    [GEOMETRY_QUERYABLE, { sql: columnText(p.minLon), type: "geometry" }],
  ]);
  for (const { name } of QUERYABLE_PROPERTIES) {
    const q = proofProperty(name);
    const type = q?.queryable ? CQL2_TYPE[q.type] : undefined;
    if (q?.column && type) queryables.set(name, { sql: columnText(q.column), type });
  }
  return {
    property: (name) => queryables.get(name),
    names: () => [GEOMETRY_QUERYABLE, ...QUERYABLE_PROPERTIES.map((x) => x.name)],
    spatial: (op, _q, literal) => spatial(op, literal, target),
  };
}

/** The shape as PostGIS reads it (migration 0006's generated column, GiST-indexed; not in db/schema.ts, so no
 * select list fetches it). */
const SHAPE = sql`"location_proofs"."shape"`;
/** The representative point as a PostGIS point (null without coordinates). */
const POINT = sql`ST_SetSRID(ST_MakePoint(${p.longitude}, ${p.latitude}), 4326)`;

/**
 * The spatial functions. On location-proof-shapes, every predicate is PostGIS's on the stored shape (lines,
 * polygons with holes, multi-geometries and collections alike; spatial.ts says how a shape across the antimeridian
 * is read). On location-proofs, whose features are points, S_INTERSECTS and S_DISJOINT (its negation: where the
 * feature has no geometry both are unknown) keep the point path, exact and faster than a geometry per row: the GiST
 * index on the bounds narrows to the literal's box, then the point is tested in the polygon (on its boundary
 * included, in no hole). The other predicates narrow the same way, then PostGIS decides on the point.
 */
function spatial(op: SpatialOp, literal: BboxLit | GeometryLit, target: SpatialTarget): SQL | string {
  if (target === "bounds")
    return unwrappedPredicate(op, SHAPE, { west: sql`${p.minLon}`, east: sql`${p.maxLon}` }, literal);
  // A line literal has no point path: PostGIS decides on the point, after the same narrowing.
  if ((op !== "s_intersects" && op !== "s_disjoint") || hasLine(literal)) {
    const exact = planarPredicate(op, POINT, literal);
    const b = literalBounds(literal);
    if (!b) return exact;
    const [minLon, minLat, maxLon, maxLat] = b;
    // S_DISJOINT holds outside the box too: it is NOT S_INTERSECTS, narrowed inside.
    if (op === "s_disjoint") {
      const inBox = bboxCondition({ minLon, minLat, maxLon, maxLat }, target);
      return sql`(not (${inBox} and ${planarPredicate("s_intersects", POINT, literal)}))`;
    }
    return sql`(${bboxCondition({ minLon, minLat, maxLon, maxLat }, target)} and ${exact})`;
  }
  const intersects = intersection(literal);
  return op === "s_intersects" ? intersects : sql`(not ${intersects})`;
}

const hasLine = (g: BboxLit | GeometryLit): boolean =>
  g.kind === "linestring" ||
  g.kind === "multilinestring" ||
  (g.kind === "geometrycollection" && g.geometries.some(hasLine));

function intersection(literal: BboxLit | GeometryLit): SQL {
  const any = (parts: SQL[]): SQL => sql`(${sql.join(parts, sql` or `)})`;
  switch (literal.kind) {
    case "bbox":
      return bboxCondition(literal, "point");
    case "point": {
      const [lon, lat] = literal.coordinates;
      return bboxCondition({ minLon: lon, minLat: lat, maxLon: lon, maxLat: lat }, "point");
    }
    case "multipoint":
      return any(literal.coordinates.map((c) => intersection({ kind: "point", coordinates: c })));
    case "polygon":
      return polygonCondition(literal);
    case "multipolygon":
      return any(literal.coordinates.map((c) => polygonCondition({ kind: "polygon", coordinates: c })));
    case "geometrycollection":
      return any(literal.geometries.map((g) => intersection(g)));
    default:
      // Lines never reach here (spatial() gives them to PostGIS).
      return planarPredicate("s_intersects", POINT, literal);
  }
}

/**
 * A point in a polygon: the bounds' GiST index narrows to the polygon's box, then PostGIS decides (on the boundary,
 * a hole's included, is in; in a hole is out). PostgreSQL's own `point <@ polygon` is not used: it compares with a
 * tolerance (1e-6), which is not exact.
 */
function polygonCondition(poly: PolygonLit): SQL {
  const outer = poly.coordinates[0]!;
  const xs = outer.map(([x]) => x);
  const ys = outer.map(([, y]) => y);
  const prefilter = bboxCondition(
    { minLon: Math.min(...xs), minLat: Math.min(...ys), maxLon: Math.max(...xs), maxLat: Math.max(...ys) },
    "point",
  );
  return sql`(${prefilter} and ${planarPredicate("s_intersects", POINT, poly)})`;
}
