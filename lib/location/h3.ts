import { cellToBoundary, cellToLatLng, getResolution, isValidCell, latLngToCell } from "h3-js";
import { type Bbox, bboxOf, type Geometry } from "./geometry.js";

/**
 * An H3 cell (Uber's hierarchical hexagons; locationType `h3`) as a geometry: the cell's boundary as a Polygon
 * (longitude first, the ring closed, counter-clockwise as RFC 7946 asks) and its centre as the representative point.
 * Decoded with h3-js at index time only (the read functions never load it: scripts/build.ts refuses that).
 *
 * Accepted: the usual hexadecimal index (`8928308280fffff`), any case, optionally with a `0x` prefix (how a uint64
 * index often travels on chain). Anything else, or an index h3-js does not accept as a cell, is not a cell.
 */
export type H3Cell = { geometry: Geometry; longitude: number; latitude: number; bbox: Bbox };

export function h3Cell(text: string): H3Cell | undefined {
  const index = text.trim().toLowerCase().replace(/^0x/, "");
  if (!/^[0-9a-f]{15,16}$/.test(index) || !isValidCell(index)) return undefined;
  // formatAsGeoJson: [lng, lat] pairs with the first vertex repeated at the end.
  const ring = cellToBoundary(index, true);
  const [latitude, longitude] = cellToLatLng(index);
  const geometry: Geometry = { type: "Polygon", coordinates: [ring] };
  // A cell around a pole covers every longitude up to the pole itself, which is no vertex of its boundary (and its
  // ring, circling the pole, has no planar orientation: h3's own order is kept).
  const res = getResolution(index);
  const north = latLngToCell(90, 0, res) === index;
  if (north || latLngToCell(-90, 0, res) === index) {
    const lats = ring.map((p) => p[1]!);
    const bbox: Bbox = north ? [-180, Math.min(...lats), 180, 90] : [-180, -90, 180, Math.max(...lats)];
    return { geometry, longitude, latitude, bbox };
  }
  if (signedArea(ring) < 0) ring.reverse();
  // The shared rule gives a cell across the antimeridian west > east bounds (RFC 7946 §5.2), as for other shapes.
  return { geometry, longitude, latitude, bbox: bboxOf(geometry) };
}

/**
 * Twice the ring's signed area (shoelace), positive when counter-clockwise. Longitudes are unwrapped along the ring
 * first, so a cell across the antimeridian is measured whole rather than as a ring spanning the globe.
 */
function signedArea(ring: number[][]): number {
  let sum = 0;
  let prevX = ring[0]![0]!;
  for (let i = 1; i < ring.length; i++) {
    let x = ring[i]![0]!;
    while (x - prevX > 180) x -= 360;
    while (prevX - x > 180) x += 360;
    sum += prevX * ring[i]![1]! - x * ring[i - 1]![1]!;
    prevX = x;
  }
  return sum;
}
