import { FEATURE_TYPE } from "../proofs/json-sql.js";
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

/**
 * A proof as a JSON-FG feature (lib/jsonfg/): the GeoJSON feature with `featureType`, `time` (the event time as an
 * instant, null without one) and `place` (null here: the writer fills it when another coordinate system is asked
 * for), in the order PostgreSQL writes them (lib/proofs/json-sql.ts). `geometry` is unchanged.
 */
export function toJsonFgFeature(row: ProofRow, collection: Pick<Collection, "geometry">) {
  const { type, id, geometry, properties, ...rest } = toFeature(row, collection);
  const at = properties.event_timestamp as string | null;
  return {
    type,
    id,
    featureType: FEATURE_TYPE,
    time: at === null ? null : { timestamp: at },
    geometry,
    ...rest,
    place: null as GeoJsonGeometry | null,
    properties,
  };
}
