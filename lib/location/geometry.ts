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

/** Nested coordinate arrays down to positions, and what holds them: a GeoJSON geometry, or a CQL2 literal. */
type Nested<P> = P | readonly Nested<P>[];
type Positioned<P> = { coordinates: Nested<P> } | { geometries: readonly Positioned<P>[] };

/**
 * Every position of a geometry in document order, each the very array the geometry holds: its coordinates flattened
 * to their positions, a collection's parts' in turn. GeoJSON's and CQL2's literals (lib/ogc/cql2/crs.ts) alike.
 */
export function everyPosition<P extends number[]>(g: Positioned<P>): P[] {
  if ("geometries" in g) return g.geometries.flatMap((part) => everyPosition(part));
  const flat = (c: Nested<P>): P[] =>
    typeof c[0] === "number" ? [c as P] : (c as readonly Nested<P>[]).flatMap(flat);
  return flat(g.coordinates);
}

/** The geometry as paths: consecutive positions of a path are joined by an edge; a ring also joins last to first. */
function paths(g: Geometry): { positions: Position[]; ring: boolean }[] {
  switch (g.type) {
    case "Point":
      return [{ positions: [g.coordinates], ring: false }];
    case "MultiPoint":
      return g.coordinates.map((p) => ({ positions: [p], ring: false }));
    case "LineString":
      return [{ positions: g.coordinates, ring: false }];
    case "MultiLineString":
      return g.coordinates.map((positions) => ({ positions, ring: false }));
    case "Polygon":
      return g.coordinates.map((positions) => ({ positions, ring: true }));
    case "MultiPolygon":
      return g.coordinates.flat().map((positions) => ({ positions, ring: true }));
    case "GeometryCollection":
      return g.geometries.flatMap(paths);
  }
}

/**
 * The longitudes a geometry covers, as intervals [from, to] within [-180, 180]: each vertex, and each edge the
 * short way round, so an edge spanning more than 180° (179.9 → -179.9) crosses the antimeridian and covers
 * [179.9, 180] and [-180, -179.9] instead of the 359.8° between. (A ring's interior adds no longitude its edges do
 * not cover, unless it encloses a pole, when its edges cover every longitude anyway.)
 */
function lonIntervals(g: Geometry): [number, number][] {
  const out: [number, number][] = [];
  for (const { positions, ring } of paths(g)) {
    const xs = positions.map((p) => p[0]!);
    if (ring && xs.length > 1) xs.push(xs[0]!);
    xs.forEach((x, i) => {
      out.push([x, x]);
      if (i === 0) return;
      const [lo, hi] = xs[i - 1]! < x ? [xs[i - 1]!, x] : [x, xs[i - 1]!];
      if (hi - lo <= 180) out.push([lo, hi]);
      else out.push([hi, 180], [-180, lo]);
    });
  }
  return out;
}

/**
 * West and east bounds: the shortest longitude extent that holds the geometry, found as the complement of the
 * widest longitude range it does not cover. When that range is the one across the antimeridian, the extent is the
 * plain [min, max]; otherwise it crosses the antimeridian and west > east (RFC 7946 §5.2). A geometry that covers
 * every longitude (one that wraps the globe) gets [-180, 180]. On a tie the plain extent wins.
 */
function lonExtent(g: Geometry): [west: number, east: number] {
  const sorted = lonIntervals(g).sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  let [west, east] = [merged[0]![0], merged.at(-1)![1]];
  let widest = west + 180 + (180 - east);
  for (let i = 1; i < merged.length; i++) {
    const gap = merged[i]![0] - merged[i - 1]![1];
    if (gap > widest) [widest, west, east] = [gap, merged[i]![0], merged[i - 1]![1]];
  }
  return [west, east];
}

/** [west, south, east, north]; west > east when the geometry crosses the antimeridian (RFC 7946 §5.2). */
export function bboxOf(g: Geometry): Bbox {
  const lats = everyPosition(g).map((p) => p[1]!);
  const [west, east] = lonExtent(g);
  return [west, Math.min(...lats), east, Math.max(...lats)];
}

/** The geometry with every longitude below `west` moved up by 360°, so a shape crossing the antimeridian is whole. */
function unwrap(g: Geometry, west: number): Geometry {
  const p = (q: Position): Position => (q[0]! < west ? [q[0]! + 360, ...q.slice(1)] : q);
  switch (g.type) {
    case "Point":
      return { type: g.type, coordinates: p(g.coordinates) };
    case "MultiPoint":
    case "LineString":
      return { type: g.type, coordinates: g.coordinates.map(p) };
    case "MultiLineString":
    case "Polygon":
      return { type: g.type, coordinates: g.coordinates.map((l) => l.map(p)) };
    case "MultiPolygon":
      return { type: g.type, coordinates: g.coordinates.map((poly) => poly.map((l) => l.map(p))) };
    case "GeometryCollection":
      return { type: g.type, geometries: g.geometries.map((x) => unwrap(x, west)) };
  }
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
 * from the feature's middle. This rule avoids both. A geometry crossing the antimeridian is measured whole (its
 * bbox centre is near ±180°, never near 0°).
 */
export function representativePoint(g: Geometry, bbox: Bbox = bboxOf(g)): [number, number] {
  if (g.type === "Point") return [g.coordinates[0]!, g.coordinates[1]!];
  if (bbox[0] > bbox[2]) {
    // Across the antimeridian: choose on the unwrapped shape (east of 180 continues past 180), then wrap back.
    const [x, y] = planarPoint(unwrap(g, bbox[0]), [bbox[0], bbox[1], bbox[2] + 360, bbox[3]]);
    return [x > 180 ? x - 360 : x, y];
  }
  return planarPoint(g, bbox);
}

function planarPoint(g: Geometry, bbox: Bbox): [number, number] {
  const cx = (bbox[0] + bbox[2]) / 2;
  const cy = (bbox[1] + bbox[3]) / 2;
  if (containsPoint(g, cx, cy)) return [cx, cy];
  let best: Position = everyPosition(g)[0]!;
  let bestD = Number.POSITIVE_INFINITY;
  for (const p of everyPosition(g)) {
    const d = (p[0]! - cx) ** 2 + (p[1]! - cy) ** 2;
    if (d < bestD) {
      best = p;
      bestD = d;
    }
  }
  return [best[0]!, best[1]!];
}
