import { checkBbox, parseInstant, rfc3339, YEARS } from "../../params/grammar.js";
import type { BboxLit, DateLit, GeometryLit, Position, TimestampLit } from "./ast.js";

/**
 * The checks on literals that both encodings share, so `TIMESTAMP('…')` and `{"timestamp": "…"}` (or a ring in WKT
 * and in GeoJSON) are accepted and refused alike. Each returns the literal, or the reason it is refused.
 */

/**
 * Bounds that keep a hostile filter from costing more to parse or run than a page of results. `depth` counts every
 * level of nesting: a parenthesis, a NOT, a function or an operator each open one (NOT NOT NOT … is as deep as it
 * is long). `length` is the text's characters or the JSON's.
 */
export const CQL_LIMITS = {
  length: 8192,
  depth: 32,
  listItems: 1000,
  vertices: 10_000,
  /** arithmetic operators in one filter: each is a small subquery per row (compile.ts) */
  arithmetic: 32,
} as const;

export function timestampLit(value: string): TimestampLit | string {
  const instant = rfc3339(value);
  return instant
    ? { kind: "timestamp", value: instant }
    : `invalid TIMESTAMP '${value}' (RFC 3339 in ${YEARS}, e.g. 2025-01-31T12:00:00Z)`;
}

/** A DATE: YYYY-MM-DD, a possible day, which covers [start, next) in UTC. */
export function dateLit(value: string): DateLit | string {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseInstant(value) : undefined;
  return day?.start
    ? { kind: "date", start: day.start, next: new Date(day.start.getTime() + 86_400_000) }
    : `invalid DATE '${value}' (YYYY-MM-DD in ${YEARS})`;
}

/** An INTERVAL end written as a string: '..' (open), a day or an instant. */
export function intervalEndLit(value: string): { kind: "open" } | DateLit | TimestampLit | string {
  if (value === "..") return { kind: "open" };
  const day = dateLit(value);
  if (typeof day !== "string") return day;
  const instant = rfc3339(value);
  return instant
    ? { kind: "timestamp", value: instant }
    : `invalid INTERVAL end '${value}' (a date or RFC 3339 time in ${YEARS}, or '..')`;
}

/** BBOX(…): the bbox parameter's rules (lib/params/grammar.ts), so BBOX(…) and bbox= cannot disagree. */
export function bboxLit(n: readonly number[]): BboxLit | string {
  const box = checkBbox(n, "BBOX");
  return typeof box === "string" ? box : { kind: "bbox", ...box };
}

const positionError = ([x, y]: Position): string | undefined =>
  !Number.isFinite(x) || !Number.isFinite(y)
    ? "coordinates must be finite numbers"
    : x < -180 || x > 180 || y < -90 || y > 90
      ? "coordinates must lie in [-180, 180] x [-90, 90] (CRS84: longitude first)"
      : undefined;

function ringError(ring: Position[]): string | undefined {
  if (ring.length < 4) return "a POLYGON ring needs at least 4 positions";
  const [first, last] = [ring[0]!, ring.at(-1)!];
  if (first[0] !== last[0] || first[1] !== last[1])
    return "a POLYGON ring must be closed (first position = last)";
  return undefined;
}

/** Why a geometry literal is invalid (a coordinate out of range or not finite, an unclosed ring, …), if it is. */
export function geometryError(g: GeometryLit): string | undefined {
  const positions = (ps: Position[]) => ps.map(positionError).find((e) => e);
  const line = (ps: Position[]) =>
    ps.length < 2 ? "a LINESTRING needs at least 2 positions" : positions(ps);
  const polygon = (rings: Position[][]) =>
    rings.length === 0
      ? "a POLYGON needs a ring"
      : rings.map((r) => ringError(r) ?? positions(r)).find((e) => e);
  switch (g.kind) {
    case "point":
      return positionError(g.coordinates);
    case "multipoint":
      return positions(g.coordinates);
    case "linestring":
      return line(g.coordinates);
    case "multilinestring":
      return g.coordinates.map(line).find((e) => e);
    case "polygon":
      return polygon(g.coordinates);
    case "multipolygon":
      return g.coordinates.map(polygon).find((e) => e);
    case "geometrycollection":
      return g.geometries.map(geometryError).find((e) => e);
  }
}
