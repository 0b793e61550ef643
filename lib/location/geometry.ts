/**
 * GeoJSON geometries (RFC 7946, longitude first) as the indexer stores them: validated, reduced to what a map
 * client needs, with a bounding box and one representative point.
 */
export type Position = number[];
export type Geometry =
  | { type: "Point"; coordinates: Position }
  | { type: "MultiPoint"; coordinates: Position[] }
  | { type: "LineString"; coordinates: Position[] }
  | { type: "MultiLineString"; coordinates: Position[][] }
  | { type: "Polygon"; coordinates: Position[][] }
  | { type: "MultiPolygon"; coordinates: Position[][][] }
  | { type: "GeometryCollection"; geometries: Geometry[] };

export type Bbox = [minLon: number, minLat: number, maxLon: number, maxLat: number];

/** A position is 2 or 3 finite numbers, longitude in [-180, 180], latitude in [-90, 90]; zero is valid. */
export function isPosition(p: unknown): p is Position {
  return (
    Array.isArray(p) &&
    (p.length === 2 || p.length === 3) &&
    p.every((n) => typeof n === "number" && Number.isFinite(n)) &&
    Math.abs(p[0] as number) <= 180 &&
    Math.abs(p[1] as number) <= 90
  );
}

const positions = (x: unknown, min: number): x is Position[] =>
  Array.isArray(x) && x.length >= min && x.every(isPosition);
const lines = (x: unknown): x is Position[][] =>
  Array.isArray(x) && x.length >= 1 && x.every((l) => positions(l, 2));
// A ring needs four positions (the first repeated at the end); writers often forget to close it, which we accept.
const polygon = (x: unknown): x is Position[][] =>
  Array.isArray(x) && x.length >= 1 && x.every((r) => positions(r, 3));

/** Returns the geometry when it is a valid GeoJSON geometry with coordinates in range, else undefined. */
export function validGeometry(g: unknown, depth = 0): Geometry | undefined {
  if (typeof g !== "object" || g === null || depth > 4) return undefined;
  const {
    type,
    coordinates: c,
    geometries,
  } = g as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  switch (type) {
    case "Point":
      return isPosition(c) ? { type, coordinates: c } : undefined;
    case "MultiPoint":
      return positions(c, 1) ? { type, coordinates: c } : undefined;
    case "LineString":
      return positions(c, 2) ? { type, coordinates: c } : undefined;
    case "MultiLineString":
      return lines(c) ? { type, coordinates: c } : undefined;
    case "Polygon":
      return polygon(c) ? { type, coordinates: c } : undefined;
    case "MultiPolygon":
      return Array.isArray(c) && c.length >= 1 && c.every(polygon) ? { type, coordinates: c } : undefined;
    case "GeometryCollection": {
      if (!Array.isArray(geometries) || geometries.length === 0) return undefined;
      const parts = geometries.map((p) => validGeometry(p, depth + 1));
      return parts.every((p): p is Geometry => p !== undefined) ? { type, geometries: parts } : undefined;
    }
    default:
      return undefined;
  }
}

function allPositions(g: Geometry): Position[] {
  switch (g.type) {
    case "Point":
      return [g.coordinates];
    case "MultiPoint":
    case "LineString":
      return g.coordinates;
    case "MultiLineString":
    case "Polygon":
      return g.coordinates.flat();
    case "MultiPolygon":
      return g.coordinates.flat(2);
    case "GeometryCollection":
      return g.geometries.flatMap(allPositions);
  }
}

export function bboxOf(g: Geometry): Bbox {
  const ps = allPositions(g);
  const lons = ps.map((p) => p[0]!);
  const lats = ps.map((p) => p[1]!);
  return [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)];
}

/** Even-odd ray casting over one ring (lon as x, lat as y). */
function inRing(x: number, y: number, ring: Position[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as [number, number];
    const [xj, yj] = ring[j] as [number, number];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

const inPolygon = (x: number, y: number, rings: Position[][]) =>
  inRing(x, y, rings[0]!) && !rings.slice(1).some((hole) => inRing(x, y, hole));

function containsPoint(g: Geometry, x: number, y: number): boolean {
  if (g.type === "Polygon") return inPolygon(x, y, g.coordinates);
  if (g.type === "MultiPolygon") return g.coordinates.some((p) => inPolygon(x, y, p));
  if (g.type === "GeometryCollection") return g.geometries.some((p) => containsPoint(p, x, y));
  return false;
}

/**
 * The representative point (the row's longitude/latitude), chosen to lie ON or IN the geometry, never beside it:
 * - a Point is itself;
 * - an areal geometry whose bounding-box centre lies inside it gives that centre (the intuitive "middle");
 * - otherwise (lines, multipoints, concave or holed shapes whose centre falls outside) the vertex nearest to the
 *   bounding-box centre, ties going to the first such vertex, so the choice is deterministic.
 * A bbox centre alone can fall outside an L-shaped polygon or off a curved line; a first vertex is often a corner far
 * from the feature's middle. This rule avoids both.
 */
export function representativePoint(g: Geometry, bbox: Bbox = bboxOf(g)): [number, number] {
  if (g.type === "Point") return [g.coordinates[0]!, g.coordinates[1]!];
  const cx = (bbox[0] + bbox[2]) / 2;
  const cy = (bbox[1] + bbox[3]) / 2;
  if (containsPoint(g, cx, cy)) return [cx, cy];
  let best: Position = allPositions(g)[0]!;
  let bestD = Number.POSITIVE_INFINITY;
  for (const p of allPositions(g)) {
    const d = (p[0]! - cx) ** 2 + (p[1]! - cy) ** 2;
    if (d < bestD) {
      best = p;
      bestD = d;
    }
  }
  return [best[0]!, best[1]!];
}
