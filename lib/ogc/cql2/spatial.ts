import { type SQL, sql } from "drizzle-orm";
import type { BboxLit, GeometryLit, Position, SpatialOp } from "./ast.js";

/**
 * CQL2's spatial functions through PostGIS (OGC 21-065r2 §7.12, the DE-9IM predicates of Simple Features): no
 * hand-written geometry. A literal is bound as one WKT parameter, read as EPSG:4326 in the plane of longitude and
 * latitude (the standard's reading and PostGIS's), so a POLYGON ring from 170 to -170 spans 340°, not the 20° across
 * the antimeridian. A BBOX with west > east crosses the antimeridian: it is the two boxes [west, 180] and
 * [-180, east].
 */

/** PostGIS's function for each CQL2 predicate (S_DISJOINT is written as NOT S_INTERSECTS: same answer, indexed). */
export const ST_FUNCTION: Record<Exclude<SpatialOp, "s_disjoint">, string> = {
  s_intersects: "ST_Intersects",
  s_equals: "ST_Equals",
  s_touches: "ST_Touches",
  s_within: "ST_Within",
  s_overlaps: "ST_Overlaps",
  s_crosses: "ST_Crosses",
  s_contains: "ST_Contains",
};

const pos = ([x, y]: Position) => `${x} ${y}`;
const list = (ps: Position[]) => `(${ps.map(pos).join(",")})`;
const rings = (rs: Position[][]) => `(${rs.map(list).join(",")})`;
const box = (w: number, s: number, e: number, n: number) =>
  rings([
    [
      [w, s],
      [e, s],
      [e, n],
      [w, n],
      [w, s],
    ],
  ]);

/** The literal as WKT (numbers as JavaScript prints them: shortest round-trip, so no precision is lost). */
export function toWkt(g: BboxLit | GeometryLit): string {
  switch (g.kind) {
    case "bbox":
      return g.minLon <= g.maxLon
        ? `POLYGON${box(g.minLon, g.minLat, g.maxLon, g.maxLat)}`
        : `MULTIPOLYGON(${box(g.minLon, g.minLat, 180, g.maxLat)},${box(-180, g.minLat, g.maxLon, g.maxLat)})`;
    case "point":
      return `POINT(${pos(g.coordinates)})`;
    case "multipoint":
      return `MULTIPOINT(${g.coordinates.map((c) => `(${pos(c)})`).join(",")})`;
    case "linestring":
      return `LINESTRING${list(g.coordinates)}`;
    case "multilinestring":
      return `MULTILINESTRING${rings(g.coordinates)}`;
    case "polygon":
      return `POLYGON${rings(g.coordinates)}`;
    case "multipolygon":
      return `MULTIPOLYGON(${g.coordinates.map(rings).join(",")})`;
    case "geometrycollection":
      return `GEOMETRYCOLLECTION(${g.geometries.map(toWkt).join(",")})`;
  }
}

/** The literal as a PostGIS geometry (one bound parameter). */
export const postgisLiteral = (g: BboxLit | GeometryLit): SQL => sql`ST_GeomFromText(${toWkt(g)}, 4326)`;

/** The bounds of a literal, [west, south, east, north] (a BBOX across the antimeridian: undefined, no prefilter). */
export function literalBounds(g: BboxLit | GeometryLit): [number, number, number, number] | undefined {
  if (g.kind === "bbox") return g.minLon <= g.maxLon ? [g.minLon, g.minLat, g.maxLon, g.maxLat] : undefined;
  const ps: Position[] = [];
  let crossing = false;
  const walk = (x: BboxLit | GeometryLit): void => {
    switch (x.kind) {
      case "bbox":
        if (x.minLon > x.maxLon) crossing = true;
        ps.push([x.minLon, x.minLat], [x.maxLon, x.maxLat]);
        return;
      case "point":
        ps.push(x.coordinates);
        return;
      case "multipoint":
      case "linestring":
        ps.push(...x.coordinates);
        return;
      case "multilinestring":
      case "polygon":
        for (const r of x.coordinates) ps.push(...r);
        return;
      case "multipolygon":
        for (const p of x.coordinates) for (const r of p) ps.push(...r);
        return;
      case "geometrycollection":
        x.geometries.forEach(walk);
    }
  };
  walk(g);
  if (crossing || ps.length === 0) return undefined;
  const xs = ps.map(([x]) => x);
  const ys = ps.map(([, y]) => y);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/**
 * `op(geometry, literal)` on a PostGIS geometry expression, planar: true, false, or null where the geometry is null
 * (three-valued logic: S_DISJOINT is NOT S_INTERSECTS, so it stays unknown there too). The form every catalogue
 * with a plain geometry column uses (the test annex's data); its GiST index serves every predicate but S_DISJOINT.
 */
export function planarPredicate(op: SpatialOp, geometry: SQL, literal: BboxLit | GeometryLit): SQL {
  const lit = postgisLiteral(literal);
  if (op === "s_disjoint") return sql`(not ST_Intersects(${geometry}, ${lit}))`;
  return sql`${sql.raw(ST_FUNCTION[op])}(${geometry}, ${lit})`;
}

/**
 * `op(shape, literal)` on a stored shape that is unwrapped where its bounds cross the antimeridian (migration 0006:
 * such a shape lies in [west, east + 360]). A crossing shape is tested against the literal together with its copy
 * moved by +360°, unioned (so two halves of a literal that meet at 180° are one geometry), which is the literal as
 * it lies on the globe around that shape. Every other shape is tested against the literal as it is.
 */
export function unwrappedPredicate(
  op: SpatialOp,
  shape: SQL,
  bounds: { west: SQL; east: SQL },
  literal: BboxLit | GeometryLit,
): SQL {
  const lit = postgisLiteral(literal);
  const moved = sql`ST_Translate(${lit}, 360, 0)`;
  const plain = sql`${bounds.west} <= ${bounds.east}`;
  const crossing = sql`${bounds.west} > ${bounds.east}`;
  // Every predicate but S_DISJOINT implies that the shape meets the literal (S_EQUALS, S_TOUCHES, S_WITHIN,
  // S_OVERLAPS, S_CROSSES and S_CONTAINS are false where the two are apart, and a literal is never empty): a shape
  // that passes has a box that overlaps the literal's or, crossing, the moved copy's. That prefilter, in front, is
  // what the GiST index reads (the crossing shapes' own partial index for the moved copy): tight boxes, never the box
  // of the union (which spans over 360°), and the exact test runs once per row it leaves. A plain shape within (or
  // equal to) the literal has its box inside the literal's, and one that contains it has a box around it: `@` and `~`,
  // tighter than `&&`, which the same index reads (PostGIS rounds both boxes outward alike, which keeps containment).
  // It changes no answer: where the test is true the prefilter is, and where the test is unknown (a null shape) the
  // prefilter is not false.
  const box = sql.raw(op === "s_within" || op === "s_equals" ? "@" : op === "s_contains" ? "~" : "&&");
  const prefilter = sql`(${shape} ${box} ${lit} or (${crossing} and ${shape} && ${moved}))`;
  if (op === "s_intersects" || op === "s_disjoint") {
    const intersects = sql`(${prefilter} and ((${plain} and ST_Intersects(${shape}, ${lit})) or (${crossing} and (ST_Intersects(${shape}, ${lit}) or ST_Intersects(${shape}, ${moved})))))`;
    return op === "s_intersects" ? intersects : sql`(not ${intersects})`;
  }
  const fn = sql.raw(ST_FUNCTION[op]);
  return sql`(${prefilter} and ((${plain} and ${fn}(${shape}, ${lit})) or (${crossing} and ${fn}(${shape}, ST_Union(${lit}, ${moved})))))`;
}
