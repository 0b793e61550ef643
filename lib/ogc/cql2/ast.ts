/**
 * CQL2 (OGC 21-065r2) as one syntax tree: the text parser (parse.ts) and the JSON parser (parse-json.ts) both
 * produce it, and one compiler (compile.ts) turns it into parameterised SQL. Nothing in the tree is ever spliced
 * into SQL text. Where each node came from (a character of the text, a JSON pointer) is kept aside (where.ts), so
 * the tree of a text filter and of its JSON twin are equal.
 */

export type Property = { kind: "property"; name: string };
export type StringLit = { kind: "string"; value: string };
export type NumberLit = { kind: "number"; value: number };
export type BooleanLit = { kind: "boolean"; value: boolean };
/** TIMESTAMP('…'): one instant. */
export type TimestampLit = { kind: "timestamp"; value: Date };
/** DATE('…'): a whole UTC day, [start, next day). */
export type DateLit = { kind: "date"; start: Date; next: Date };
/** CASEI(…) and ACCENTI(…): a string compared without regard to case or accents. */
export type Insensitive = { kind: "casei" | "accenti"; arg: Scalar };
export type ArithmeticOp = "+" | "-" | "*" | "/" | "%" | "div" | "^";
export type Arithmetic = { kind: "arith"; op: ArithmeticOp; left: Scalar; right: Scalar };

export type Scalar =
  | Property
  | StringLit
  | NumberLit
  | BooleanLit
  | TimestampLit
  | DateLit
  | Insensitive
  | Arithmetic;

/** An INTERVAL end: '..' (open), an instant, a day, or a property (INTERVAL(start_prop, end_prop)). */
export type IntervalEnd = { kind: "open" } | TimestampLit | DateLit | Property;
export type IntervalLit = { kind: "interval"; start: IntervalEnd; end: IntervalEnd };
export type Temporal = Property | TimestampLit | DateLit | IntervalLit;

export type BboxLit = { kind: "bbox"; minLon: number; minLat: number; maxLon: number; maxLat: number };
export type Position = [number, number];
export type PointLit = { kind: "point"; coordinates: Position };
export type MultiPointLit = { kind: "multipoint"; coordinates: Position[] };
export type LineStringLit = { kind: "linestring"; coordinates: Position[] };
export type MultiLineStringLit = { kind: "multilinestring"; coordinates: Position[][] };
/** Rings of positions; the first ring is the exterior, the others are holes. */
export type PolygonLit = { kind: "polygon"; coordinates: Position[][] };
export type MultiPolygonLit = { kind: "multipolygon"; coordinates: Position[][][] };
export type CollectionLit = { kind: "geometrycollection"; geometries: GeometryLit[] };
export type GeometryLit =
  | PointLit
  | MultiPointLit
  | LineStringLit
  | MultiLineStringLit
  | PolygonLit
  | MultiPolygonLit
  | CollectionLit;
export type Geometry = Property | BboxLit | GeometryLit;

/** An array: `(a, b, …)` in text, a JSON array in JSON. */
export type ArrayLit = { kind: "array"; items: (Scalar | ArrayLit)[] };
export type ArrayOperand = Property | ArrayLit;

export type ComparisonOp = "=" | "<>" | "<" | "<=" | ">" | ">=";
export const SPATIAL_OPS = [
  "s_intersects",
  "s_equals",
  "s_disjoint",
  "s_touches",
  "s_within",
  "s_overlaps",
  "s_crosses",
  "s_contains",
] as const;
export type SpatialOp = (typeof SPATIAL_OPS)[number];
export const TEMPORAL_OPS = [
  "t_after",
  "t_before",
  "t_contains",
  "t_disjoint",
  "t_during",
  "t_equals",
  "t_finishedby",
  "t_finishes",
  "t_intersects",
  "t_meets",
  "t_metby",
  "t_overlappedby",
  "t_overlaps",
  "t_startedby",
  "t_starts",
] as const;
export type TemporalOp = (typeof TEMPORAL_OPS)[number];
export const ARRAY_OPS = ["a_equals", "a_contains", "a_containedby", "a_overlaps"] as const;
export type ArrayOp = (typeof ARRAY_OPS)[number];

/** Whether a lowercased function name is one of the spatial, temporal or array predicates (both parsers ask). */
export const isSpatialOp = (w: string): w is SpatialOp => (SPATIAL_OPS as readonly string[]).includes(w);
export const isTemporalOp = (w: string): w is TemporalOp => (TEMPORAL_OPS as readonly string[]).includes(w);
export const isArrayOp = (w: string): w is ArrayOp => (ARRAY_OPS as readonly string[]).includes(w);

export type Expr =
  | { kind: "and" | "or"; args: Expr[] }
  | { kind: "not"; arg: Expr }
  | { kind: "compare"; op: ComparisonOp; left: Scalar; right: Scalar }
  | { kind: "between"; value: Scalar; low: Scalar; high: Scalar }
  | { kind: "in"; value: Scalar; list: Scalar[] }
  | { kind: "like"; value: Scalar; pattern: Scalar }
  | { kind: "isNull"; value: Scalar | Geometry }
  | { kind: "spatial"; op: SpatialOp; args: [Geometry, Geometry] }
  | { kind: "temporal"; op: TemporalOp; args: [Temporal, Temporal] }
  | { kind: "array"; op: ArrayOp; args: [ArrayOperand, ArrayOperand] }
  | { kind: "literal"; value: boolean };
