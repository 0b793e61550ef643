import { type AnyColumn, and, type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../../db/schema.js";
import { rfc3339 } from "../../params/grammar.js";
import { bboxCondition, type SpatialTarget } from "../../proofs/filter.js";
import { type PropertyType, proofProperty, QUERYABLE_PROPERTIES } from "../../proofs/properties.js";
import { sqlTimestamp } from "../../proofs/timestamps.js";
import { GEOMETRY_QUERYABLE } from "../vocabulary.js";
import type {
  ComparisonOp,
  DateLit,
  Expr,
  Geometry,
  PolygonLit,
  Scalar,
  Temporal,
  TimestampLit,
} from "./ast.js";

/** The types CQL2 compares by: uids and hashes are compared as addresses are (lowercased). */
export type QueryableType = "string" | "address" | "integer" | "number" | "boolean" | "timestamp";

type Queryable = { column: AnyColumn; type: QueryableType };

const CQL2_TYPE: Partial<Record<PropertyType, QueryableType>> = {
  string: "string",
  address: "address",
  hash: "address",
  integer: "integer",
  number: "number",
  boolean: "boolean",
  timestamp: "timestamp",
};

/** A filter that is well-formed CQL2 but cannot be evaluated here (unknown property, wrong types, …). */
export class CqlSemanticError extends Error {}

const fail = (message: string): never => {
  throw new CqlSemanticError(message);
};

/**
 * Compiles a parsed CQL2 expression to SQL for the shared WHERE builder (ProofFilter.where). Properties become
 * columns from the queryable properties of the catalogue (lib/proofs/properties.ts) and every literal becomes a
 * bound parameter, so no part of the filter text ever reaches the SQL text. `geometry` is what the collection's
 * features carry: the representative point or the decoded shape (its bounds).
 */
export function compileCql2(expr: Expr, geometry: SpatialTarget = "bounds"): SQL {
  const compile = (e: Expr): SQL => compileCql2(e, geometry);
  switch (expr.kind) {
    case "and":
      return and(...expr.args.map(compile))!;
    case "or":
      return sql`(${sql.join(
        expr.args.map((a) => sql`(${compile(a)})`),
        sql` or `,
      )})`;
    case "not":
      return sql`not (${compile(expr.arg)})`;
    case "literal":
      return expr.value ? sql`true` : sql`false`;
    case "compare":
      return compare(expr.op, expr.left, expr.right);
    case "isNull": {
      const q = queryable(expr.value, "IS NULL");
      return expr.negated ? sql`${q.column} is not null` : sql`${q.column} is null`;
    }
    case "between": {
      const q = queryable(expr.value, "BETWEEN");
      if (q.type !== "number" && q.type !== "integer" && q.type !== "timestamp") {
        fail(`BETWEEN needs a numeric or temporal property; '${name(expr.value)}' is ${q.type}`);
      }
      const condition = and(compareWith(q, ">=", expr.low), compareWith(q, "<=", expr.high))!;
      return expr.negated ? sql`not (${condition})` : condition;
    }
    case "in": {
      const q = queryable(expr.value, "IN");
      const list = sql`(${sql.join(
        expr.list.map((item) => literalFor(q, item, "IN")),
        sql`, `,
      )})`;
      return expr.negated ? sql`${q.column} not in ${list}` : sql`${q.column} in ${list}`;
    }
    case "like": {
      const q = queryable(expr.value, "LIKE");
      if (q.type !== "string" && q.type !== "address")
        fail(`LIKE needs a string property; '${name(expr.value)}' is ${q.type}`);
      if (expr.pattern.kind !== "string") fail("LIKE needs a quoted pattern");
      const raw = (expr.pattern as { value: string }).value;
      // An odd run of backslashes at the end escapes nothing; PostgreSQL refuses such a pattern.
      if (/(^|[^\\])(\\\\)*\\$/.test(raw))
        fail("a LIKE pattern must not end with a lone escape character (\\); write \\\\ for a backslash");
      const pattern = q.type === "address" ? raw.toLowerCase() : raw;
      // CQL2's wildcards (% and _) and escape (\) are PostgreSQL's defaults.
      return expr.negated ? sql`${q.column} not like ${pattern}` : sql`${q.column} like ${pattern}`;
    }
    case "s_intersects":
      return spatial(expr.args, geometry);
    case "temporal":
      return temporal(expr.op, expr.args);
  }
}

const name = (s: Scalar | Temporal | Geometry): string => (s.kind === "property" ? s.name : s.kind);

function lookup(property: string): Queryable {
  const q = proofProperty(property);
  const type = q?.queryable ? CQL2_TYPE[q.type] : undefined;
  if (!q?.column || !type)
    return fail(
      `unknown property '${property}'. Queryables: ${[GEOMETRY_QUERYABLE, ...QUERYABLE_PROPERTIES.map((x) => x.name)].join(", ")}`,
    );
  return { column: q.column, type };
}

function queryable(s: Scalar, op: string): Queryable {
  if (s.kind !== "property") fail(`the left side of ${op} must be a property`);
  return lookup((s as { name: string }).name);
}

const FLIP: Record<ComparisonOp, ComparisonOp> = {
  "=": "=",
  "<>": "<>",
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
};

function compare(op: ComparisonOp, left: Scalar, right: Scalar): SQL {
  if (left.kind === "property" && right.kind === "property") {
    const a = lookup(left.name);
    const b = lookup(right.name);
    const family = (t: string) => (t === "integer" ? "number" : t === "address" ? "string" : t);
    if (family(a.type) !== family(b.type))
      fail(`cannot compare '${left.name}' (${a.type}) with '${right.name}' (${b.type})`);
    if (a.type === "boolean" && op !== "=" && op !== "<>") fail(`booleans can only be compared with = or <>`);
    // sql.raw(op) is safe: op is one of the six operator tokens the lexer recognises, never client text.
    return sql`${a.column} ${sql.raw(op)} ${b.column}`;
  }
  if (left.kind === "property") return compareWith(lookup(left.name), op, right);
  if (right.kind === "property") return compareWith(lookup(right.name), FLIP[op], left);
  return fail("a comparison needs a property on at least one side");
}

/** `column op literal`, with the literal type-checked against the property and bound as a parameter. */
function compareWith(q: Queryable, op: ComparisonOp, literal: Scalar): SQL {
  if (literal.kind === "property") fail("BETWEEN bounds must be literals");
  if (q.type === "boolean" && op !== "=" && op !== "<>") fail("booleans can only be compared with = or <>");
  if (q.type === "timestamp") {
    const t = asTemporal(literal);
    if (t.kind === "date") return dateComparison(q, op, t);
    return sql`${q.column} ${sql.raw(op)} ${sqlTimestamp(t.value)}`;
  }
  return sql`${q.column} ${sql.raw(op)} ${literalFor(q, literal, op)}`;
}

/** A literal of the property's type as a bound parameter with an explicit cast. */
function literalFor(q: Queryable, literal: Scalar, op: string): SQL {
  switch (q.type) {
    case "string":
    case "address":
      if (literal.kind !== "string") fail(`${op}: expected a quoted string for a ${q.type} property`);
      return sql`${q.type === "address" ? (literal as { value: string }).value.toLowerCase() : (literal as { value: string }).value}::text`;
    case "integer":
    case "number":
      if (literal.kind !== "number") fail(`${op}: expected a number`);
      // numeric keeps integers exact and compares with bigint, integer and double columns alike.
      return sql`${String((literal as { value: number }).value)}::numeric`;
    case "boolean":
      if (literal.kind !== "boolean") fail(`${op}: expected TRUE or FALSE`);
      return sql`${(literal as { value: boolean }).value}::boolean`;
    case "timestamp":
      return sqlTimestamp(asInstant(literal));
  }
}

function asTemporal(literal: Scalar): TimestampLit | DateLit {
  if (literal.kind === "timestamp" || literal.kind === "date") return literal;
  if (literal.kind === "string") {
    const instant = rfc3339(literal.value);
    if (instant) return { kind: "timestamp", value: instant };
    fail(
      "a timestamp string must be a valid RFC 3339 date-time in years 0001-9999, e.g. '2025-01-31T12:00:00Z'",
    );
  }
  return fail("expected a TIMESTAMP('…') or DATE('…') literal for a temporal property");
}

function asInstant(literal: Scalar): Date {
  const t = asTemporal(literal);
  if (t.kind === "date") fail("IN lists of a temporal property take TIMESTAMP literals");
  return (t as TimestampLit).value;
}

/** A DATE is the whole UTC day [start, next): `= DATE` means "on that day". */
function dateComparison(q: Queryable, op: ComparisonOp, d: DateLit): SQL {
  const start = sqlTimestamp(d.start);
  const next = sqlTimestamp(d.next);
  const c = q.column;
  switch (op) {
    case "=":
      return sql`(${c} >= ${start} and ${c} < ${next})`;
    case "<>":
      return sql`(${c} < ${start} or ${c} >= ${next})`;
    case "<":
      return sql`${c} < ${start}`;
    case "<=":
      return sql`${c} < ${next}`;
    case ">":
      return sql`${c} >= ${next}`;
    case ">=":
      return sql`${c} >= ${start}`;
  }
}

/**
 * S_INTERSECTS(geometry, literal). A proof without geometry gives null (unknown), never false, so that NOT
 * S_INTERSECTS(…) does not match it either: CQL2's rule for a predicate on a null.
 */
function spatial([a, b]: [Geometry, Geometry], target: SpatialTarget): SQL {
  const aIsProperty = a.kind === "property";
  const bIsProperty = b.kind === "property";
  if (aIsProperty === bIsProperty)
    fail("S_INTERSECTS compares the geometry property with a geometry literal");
  const property = (aIsProperty ? a : b) as { name: string };
  const literal = (aIsProperty ? b : a) as Exclude<Geometry, { kind: "property" }>;
  if (property.name !== GEOMETRY_QUERYABLE)
    fail(`'${property.name}' is not a spatial property; use '${GEOMETRY_QUERYABLE}'`);
  const lonOk = (x: number) => x >= -180 && x <= 180;
  const latOk = (y: number) => y >= -90 && y <= 90;
  switch (literal.kind) {
    case "bbox":
      // Checked by the parser with the bbox parameter's rules (checkBbox); minLon > maxLon crosses the antimeridian.
      return bboxCondition(literal, target);
    case "point": {
      if (!lonOk(literal.lon) || !latOk(literal.lat))
        fail("POINT coordinates must lie in [-180, 180] x [-90, 90]");
      return bboxCondition(
        { minLon: literal.lon, minLat: literal.lat, maxLon: literal.lon, maxLat: literal.lat },
        target,
      );
    }
    case "polygon":
      return polygonCondition(literal, target, lonOk, latOk);
  }
}

/**
 * S_INTERSECTS with a polygon, without PostGIS: the GiST index narrows to the polygon's bounding box, then points
 * are tested exactly (in the exterior ring and in no hole): every feature of the point collection, the point
 * proofs of the shapes collection. Lines and polygons of the shapes collection are tested by their bounding box
 * (PostgreSQL's polygon overlap), which can over-match near a concave edge.
 */
function polygonCondition(
  poly: PolygonLit,
  target: SpatialTarget,
  lonOk: (x: number) => boolean,
  latOk: (y: number) => boolean,
): SQL {
  for (const ring of poly.rings) {
    if (ring.length < 4) fail("POLYGON rings need at least 4 positions");
    const [first, last] = [ring[0]!, ring.at(-1)!];
    if (first[0] !== last[0] || first[1] !== last[1])
      fail("POLYGON rings must be closed (first position = last)");
    if (!ring.every(([x, y]) => lonOk(x) && latOk(y)))
      fail("POLYGON coordinates must lie in [-180, 180] x [-90, 90]");
  }
  const outer = poly.rings[0]!;
  const xs = outer.map(([x]) => x);
  const ys = outer.map(([, y]) => y);
  const prefilter = bboxCondition(
    { minLon: Math.min(...xs), minLat: Math.min(...ys), maxLon: Math.max(...xs), maxLat: Math.max(...ys) },
    target,
  );
  // PostgreSQL's polygon text form, built from parsed numbers and bound as one parameter.
  const pg = (ring: [number, number][]) => `(${ring.map(([x, y]) => `(${x},${y})`).join(",")})`;
  const point = sql`point(${p.longitude}, ${p.latitude})`;
  const holes = poly.rings.slice(1).map((ring) => sql` and not (${point} <@ ${pg(ring)}::polygon)`);
  const pointTest = sql`(${point} <@ ${pg(outer)}::polygon${sql.join(holes)})`;
  if (target === "point") return sql`(${prefilter} and ${pointTest})`;
  // Bounds crossing the antimeridian (west > east) are two boxes: [west, 180] and [-180, east].
  const crossing = sql`${p.minLon} > ${p.maxLon}`;
  const eastEdge = sql`case when ${crossing} then 180 else ${p.maxLon} end`;
  const box = sql`polygon(box(point(${p.minLon}, ${p.minLat}), point(${eastEdge}, ${p.maxLat})))`;
  const westPart = sql`polygon(box(point(-180, ${p.minLat}), point(${p.maxLon}, ${p.maxLat})))`;
  const boundsTest = sql`(${box} && ${pg(outer)}::polygon or (${crossing} and ${westPart} && ${pg(outer)}::polygon))`;
  return sql`(${prefilter} and case when ${p.geometry}->>'type' = 'Point' then ${pointTest} else ${boundsTest} end)`;
}

/** Temporal operators on an instant property; a DATE is the whole day, an INTERVAL may be open on one side. */
function temporal(op: "t_intersects" | "t_after" | "t_before", [a, b]: [Temporal, Temporal]): SQL {
  const aIsProperty = a.kind === "property";
  if (aIsProperty === (b.kind === "property"))
    fail(`${op.toUpperCase()} compares a temporal property with a literal`);
  const property = (aIsProperty ? a : b) as { name: string };
  const literal = (aIsProperty ? b : a) as Exclude<Temporal, { kind: "property" }>;
  const q = lookup(property.name);
  if (q.type !== "timestamp") fail(`'${property.name}' is not a temporal property`);
  // T_AFTER(literal, property) is T_BEFORE(property, literal).
  const effective = aIsProperty ? op : op === "t_after" ? "t_before" : op === "t_before" ? "t_after" : op;
  const c = q.column;
  const start = literal.kind === "interval" ? literal.start : literal;
  const end = literal.kind === "interval" ? literal.end : literal;
  const atOrAfterStart = start ? sql`${c} >= ${startOf(start)}` : sql`${c} is not null`;
  const atOrBeforeEnd = end
    ? end.kind === "date"
      ? sql`${c} < ${sqlTimestamp(end.next)}`
      : sql`${c} <= ${sqlTimestamp(end.value)}`
    : sql`${c} is not null`;
  switch (effective) {
    case "t_intersects":
      return sql`(${atOrAfterStart} and ${atOrBeforeEnd})`;
    case "t_after":
      if (!end) return sql`false`;
      return end.kind === "date"
        ? sql`${c} >= ${sqlTimestamp(end.next)}`
        : sql`${c} > ${sqlTimestamp(end.value)}`;
    case "t_before":
      if (!start) return sql`false`;
      return sql`${c} < ${startOf(start)}`;
  }
}

const startOf = (t: TimestampLit | DateLit): SQL => sqlTimestamp(t.kind === "date" ? t.start : t.value);
