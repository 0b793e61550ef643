import proj4 from "proj4";
import { CRS84_SYSTEM, type CrsSystem } from "./systems.js";

/**
 * Transforms between CRS84 (how every geometry is stored) and a served system (lib/crs/systems.ts), with proj4js.
 * A position is [x, y] or [x, y, z]; a height passes through unchanged (the systems are 2D). Projected coordinates
 * are rounded to the millimetre, far below any datum shift's accuracy, which keeps a page's bytes small.
 */

export type Position = number[];
/** A GeoJSON geometry, as loosely as the stored ones are typed. */
export type Geometry = { type: string; coordinates?: unknown; geometries?: unknown[] };

/** A converter per system, made once (proj4 parses a definition on each call of proj4(a, b)). */
const converters = new Map<string, proj4.Converter>();
function converter(system: CrsSystem): proj4.Converter {
  let c = converters.get(system.uri);
  if (!c) {
    c = proj4(CRS84_SYSTEM.proj4, system.proj4);
    converters.set(system.uri, c);
  }
  return c;
}

const mm = (x: number) => Math.round(x * 1000) / 1000;
const isGeographic = (system: CrsSystem) => system.proj4 === CRS84_SYSTEM.proj4;

/** A position's first two numbers replaced by `xy`, a third (a height) kept. */
const withHeight = (p: Position, xy: Position): Position => (p.length > 2 ? [...xy, ...p.slice(2)] : xy);

/**
 * The positions of one direction between CRS84 and `system`: undefined for CRS84 itself, an axis swap for a
 * geographic system (latitude first), else the projection, its two numbers in the system's axis order.
 */
function positionMap(
  system: CrsSystem,
  direction: "forward" | "inverse",
): ((p: Position) => Position) | undefined {
  if (system.uri === CRS84_SYSTEM.uri) return undefined;
  if (isGeographic(system)) return (p) => withHeight(p, [p[1]!, p[0]!]);
  const c = converter(system);
  // East-north (the projection's order) to the system's axis order, and back: the same swap or none.
  const ordered = (xy: Position) => (system.axes === "north-east" ? [xy[1]!, xy[0]!] : [xy[0]!, xy[1]!]);
  if (direction === "forward") return (p) => withHeight(p, ordered(c.forward([p[0]!, p[1]!])).map(mm));
  return (p) => {
    const [lon, lat] = c.inverse(ordered(p));
    return withHeight(p, [lon!, lat!]);
  };
}

/**
 * The function that turns a CRS84 position into `system`'s, in the system's axis order; undefined for CRS84 itself.
 * A position the projection cannot map (a pole in Web Mercator) comes out with non-finite numbers: see geometryTo.
 */
export const positionTo = (system: CrsSystem) => positionMap(system, "forward");

/** The inverse: a position of `system` (in its axis order) to CRS84 longitude/latitude. */
export const positionFrom = (system: CrsSystem) => positionMap(system, "inverse");

/** Every position of nested coordinate arrays through `f`, the nesting kept. */
function mapCoordinates(coordinates: unknown, f: (p: Position) => Position): unknown {
  if (!Array.isArray(coordinates)) return coordinates;
  if (typeof coordinates[0] === "number") return f(coordinates as Position);
  return coordinates.map((c) => mapCoordinates(c, f));
}

/** A geometry's positions through `f`: Point to MultiPolygon and GeometryCollection, other members kept. */
export function mapGeometry(g: Geometry, f: (p: Position) => Position): Geometry {
  if (g.type === "GeometryCollection") {
    return { ...g, geometries: (g.geometries ?? []).map((x) => mapGeometry(x as Geometry, f)) };
  }
  return { ...g, coordinates: mapCoordinates(g.coordinates, f) };
}

/** Whether every number of a geometry is finite (JSON cannot carry Infinity or NaN). */
function finite(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(finite);
  if (value && typeof value === "object") {
    const g = value as Geometry;
    return g.type === "GeometryCollection" ? (g.geometries ?? []).every(finite) : finite(g.coordinates);
  }
  return true;
}

/**
 * A CRS84 geometry in `system`; null stays null. A geometry with a position the projection cannot map (a pole in
 * Web Mercator) is null: there are no coordinates to write for it.
 */
export function geometryTo<G extends Geometry | null>(geometry: G, system: CrsSystem): Geometry | null {
  const f = positionTo(system);
  if (!geometry || !f) return geometry;
  const out = mapGeometry(geometry, f);
  return finite(out) ? out : null;
}

/**
 * A geometry given in `system` as CRS84, the seam for CQL2's `filter-crs` (a filter's geometry literals are compared
 * with stored CRS84 geometries). Throws a RangeError when a position has no CRS84 equivalent.
 */
export function geometryToCrs84<G extends Geometry>(geometry: G, system: CrsSystem): Geometry {
  const f = positionFrom(system);
  if (!f) return geometry;
  const out = mapGeometry(geometry, f);
  if (!finite(out)) throw new RangeError(`a position has no equivalent in CRS84 (${system.code})`);
  return out;
}

/** [minX, minY, maxX, maxY] of a geometry's positions in its own axis order; undefined without positions. */
export function envelope(g: Geometry): [number, number, number, number] | undefined {
  let box: [number, number, number, number] | undefined;
  mapGeometry(g, (p) => {
    const [x, y] = p as [number, number];
    box = box
      ? [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)]
      : [x, y, x, y];
    return p;
  });
  return box;
}

/** Points along each edge of a box, so that a curved image of the box is enclosed by the envelope of their images. */
const EDGE_STEPS = 16;

/**
 * A bbox given in `system` (its axis order: for EPSG:4326 minLat,minLon,maxLat,maxLon) as the CRS84 box
 * [west, south, east, north] that encloses it: the envelope of its edges' images, each edge sampled, since a
 * projected box's edges are curves in longitude and latitude. Throws a RangeError when a corner has no CRS84
 * equivalent.
 */
export function bboxToCrs84(
  box: readonly [number, number, number, number],
  system: CrsSystem,
): [number, number, number, number] {
  const f = positionFrom(system);
  if (!f) return [...box];
  if (isGeographic(system)) return [box[1], box[0], box[3], box[2]];
  const [a0, b0, a1, b1] = box;
  const ring: Position[] = [];
  for (let i = 0; i <= EDGE_STEPS; i++) {
    const t = i / EDGE_STEPS;
    const a = a0 + (a1 - a0) * t;
    const b = b0 + (b1 - b0) * t;
    ring.push([a, b0], [a, b1], [a0, b], [a1, b]);
  }
  const lonLat = ring.map(f);
  if (!lonLat.every((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]))) {
    throw new RangeError(`the box has no equivalent in CRS84 (${system.code})`);
  }
  const out = envelope({ type: "MultiPoint", coordinates: lonLat })!;
  return [Math.max(out[0], -180), Math.max(out[1], -90), Math.min(out[2], 180), Math.min(out[3], 90)];
}
