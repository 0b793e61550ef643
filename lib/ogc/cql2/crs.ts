import type { CrsSystem } from "../../crs/systems.js";
import { bboxToCrs84, positionFrom } from "../../crs/transform.js";
import { everyPosition } from "../../location/geometry.js";
import type { BboxLit, GeometryLit, Position } from "./ast.js";
import { bboxLit } from "./literals.js";

/**
 * `filter-crs` (OGC API - Features Part 3): the coordinate reference system of a filter's geometry literals, any of
 * the systems `crs` serves (lib/crs/systems.ts). Every geometry is stored and compared in CRS84, so the parsers (both
 * encodings) hand each literal to this module as they read it, and it comes back in CRS84: the tree, its checks
 * (ranges, closed rings) and the compiler then see CRS84 only. A literal's positions are transformed in place, so
 * where.ts still knows where each node came from.
 *
 * Only the vertices are transformed: an edge between two of them is read in CRS84 as every literal's is (docs/ogc.md,
 * the planar rule), not as the straight line it is in a projected system. A BBOX becomes the CRS84 box that encloses
 * the box given (its edges sampled), as the bbox parameter's does with bbox-crs.
 */
const isCrs84 = (crs: CrsSystem | undefined) => !crs || crs.code === "OGC:CRS84";

/**
 * A geometry literal written in `crs` (its axis order), turned into CRS84 in place; a string says why it cannot be
 * (a position outside what the projection can map back). A literal in CRS84 is left as it is.
 */
export function literalToCrs84(g: GeometryLit, crs: CrsSystem | undefined): string | undefined {
  if (isCrs84(crs)) return undefined;
  const from = positionFrom(crs!)!;
  // A position shared by two rings or parts is one array only once: transform each array once.
  for (const p of new Set(everyPosition<Position>(g))) {
    const [lon, lat] = from(p);
    if (!Number.isFinite(lon) || !Number.isFinite(lat))
      return `a position (${p.join(" ")}) has no equivalent in CRS84 (filter-crs ${crs!.code})`;
    p[0] = lon!;
    p[1] = lat!;
  }
  return undefined;
}

/**
 * BBOX(…) written in `crs`: 4 or 6 numbers, the lower and upper corners in the system's axis order, as the CRS84 box
 * that encloses it (then the bbox parameter's rules, bboxLit); a string says why it is invalid.
 */
export function filterBboxLit(n: readonly number[], crs: CrsSystem | undefined): BboxLit | string {
  if (isCrs84(crs)) return bboxLit(n);
  if (!(n.length === 4 || n.length === 6) || !n.every(Number.isFinite))
    return "BBOX takes 4 or 6 finite numbers";
  const [a0, b0, a1, b1] = n.length === 6 ? [n[0]!, n[1]!, n[3]!, n[4]!] : [n[0]!, n[1]!, n[2]!, n[3]!];
  if (crs!.unit === "metre" && (a0 > a1 || b0 > b1))
    return `BBOX in ${crs!.code}: each lower corner coordinate must not exceed the upper one`;
  try {
    const box = bboxLit(bboxToCrs84([a0, b0, a1, b1], crs!));
    return typeof box === "string" ? `${box} (once transformed from ${crs!.code})` : box;
  } catch (error) {
    if (error instanceof RangeError) return `BBOX: ${error.message}`;
    throw error;
  }
}
