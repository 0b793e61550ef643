import type { FeatureCollection, Position } from "geojson";

/*
 * Natural Earth's rings that cross the antimeridian (Fiji, Russia, Antarctica) jump between +180 and -180, which a
 * flat map draws as a line across the world: both maps unwrap their longitudes so each ring stays continuous (past
 * 180 where needed), and close a ring that goes round a pole along that pole.
 */

function unwrap(ring: Position[]): Position[] {
  const out: Position[] = [];
  let offset = 0;
  for (let i = 0; i < ring.length; i++) {
    if (i > 0) {
      const step = ring[i]![0]! - ring[i - 1]![0]!;
      if (step > 180) offset -= 360;
      else if (step < -180) offset += 360;
    }
    out.push([ring[i]![0]! + offset, ring[i]![1]!]);
  }
  if (offset !== 0) {
    const first = out[0]!;
    const last = out[out.length - 1]!;
    const pole = first[1]! < 0 ? -90 : 90;
    out.push([last[0]!, pole], [first[0]!, pole], first);
  }
  return out;
}

/** Every polygon ring of `collection` unwrapped, in place; the collection itself is returned. */
export function unwrapAll(collection: FeatureCollection): FeatureCollection {
  for (const f of collection.features) {
    const g = f.geometry;
    const polygons = !g
      ? []
      : g.type === "Polygon"
        ? [g.coordinates]
        : g.type === "MultiPolygon"
          ? g.coordinates
          : [];
    for (const rings of polygons) for (let i = 0; i < rings.length; i++) rings[i] = unwrap(rings[i]!);
  }
  return collection;
}
