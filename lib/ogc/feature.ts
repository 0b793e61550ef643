import { ogcProperties } from "../proofs/properties.js";
import type { ProofRow } from "../proofs/rows.js";
import type { Collection } from "./vocabulary.js";

type GeoJsonGeometry = { type: string; coordinates?: unknown; geometries?: unknown[] };

/**
 * A proof as a GeoJSON Feature: id = uid, properties = every property of the catalogue but the geometry and its
 * bbox (so the OGC properties are as complete as /api/v0). The geometry depends on the collection:
 * - `point` (location-proofs, the spec's OGC feature): the representative point, [longitude, latitude], or null
 *   without valid coordinates; no `bbox` member (a point's bbox says nothing more);
 * - `shape` (location-proof-shapes): the decoded geometry, with a GeoJSON `bbox` member when it is not a point
 *   (west > east when it crosses the antimeridian, RFC 7946 §5.2).
 */
export function toFeature(row: ProofRow, collection: Pick<Collection, "geometry">) {
  const properties = ogcProperties(row);
  if (collection.geometry === "point") {
    const point: GeoJsonGeometry | null =
      row.longitude === null || row.latitude === null
        ? null
        : { type: "Point", coordinates: [row.longitude, row.latitude] };
    return { type: "Feature" as const, id: row.uid, geometry: point, properties };
  }
  const geometry: GeoJsonGeometry | null = row.geometry ?? null;
  const hasBounds = row.minLon !== null && row.minLat !== null && row.maxLon !== null && row.maxLat !== null;
  return {
    type: "Feature" as const,
    id: row.uid,
    geometry,
    ...(geometry && geometry.type !== "Point" && hasBounds
      ? { bbox: [row.minLon, row.minLat, row.maxLon, row.maxLat] as number[] }
      : {}),
    properties,
  };
}

export type OgcFeature = ReturnType<typeof toFeature>;
