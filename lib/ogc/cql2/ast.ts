/**
 * The CQL2 subset this service understands, as a syntax tree (OGC 21-065r2, text encoding). The parser produces it;
 * compile.ts turns it into parameterised SQL. Nothing in the tree is ever spliced into SQL text.
 */

export type Property = { kind: "property"; name: string };
export type StringLit = { kind: "string"; value: string };
export type NumberLit = { kind: "number"; value: number };
export type BooleanLit = { kind: "boolean"; value: boolean };
/** TIMESTAMP('…'): one instant. */
export type TimestampLit = { kind: "timestamp"; value: Date };
/** DATE('…'): a whole UTC day, [start, next day). */
export type DateLit = { kind: "date"; start: Date; next: Date };
/** INTERVAL(a, b): either side may be '..' (open). */
export type IntervalLit = { kind: "interval"; start?: TimestampLit | DateLit; end?: TimestampLit | DateLit };

export type Scalar = Property | StringLit | NumberLit | BooleanLit | TimestampLit | DateLit;
export type Temporal = Property | TimestampLit | DateLit | IntervalLit;

export type BboxLit = { kind: "bbox"; minLon: number; minLat: number; maxLon: number; maxLat: number };
export type PointLit = { kind: "point"; lon: number; lat: number };
/** Rings of [lon, lat] positions; the first ring is the exterior, the others are holes. */
export type PolygonLit = { kind: "polygon"; rings: [number, number][][] };
export type Geometry = Property | BboxLit | PointLit | PolygonLit;

export type ComparisonOp = "=" | "<>" | "<" | "<=" | ">" | ">=";
export type TemporalOp = "t_intersects" | "t_after" | "t_before";

export type Expr =
  | { kind: "and" | "or"; args: Expr[] }
  | { kind: "not"; arg: Expr }
  | { kind: "compare"; op: ComparisonOp; left: Scalar; right: Scalar }
  | { kind: "between"; negated: boolean; value: Scalar; low: Scalar; high: Scalar }
  | { kind: "in"; negated: boolean; value: Scalar; list: Scalar[] }
  | { kind: "like"; negated: boolean; value: Scalar; pattern: Scalar }
  | { kind: "isNull"; negated: boolean; value: Scalar }
  | { kind: "s_intersects"; args: [Geometry, Geometry] }
  | { kind: "temporal"; op: TemporalOp; args: [Temporal, Temporal] }
  | { kind: "literal"; value: boolean };
