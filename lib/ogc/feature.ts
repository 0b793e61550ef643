import type { LocationProofRow } from "../../db/schema.js";
import { serializeProof } from "../proofs/serialize.js";

/**
 * A proof as a GeoJSON Feature: id = uid, geometry = the decoded geometry (longitude first; null when the proof
 * has no valid geographic data), properties = every other field of the native representation, so the OGC
 * properties object is as complete as /api/v0. `bbox` is a GeoJSON member of the feature, not a property.
 */
export function toFeature(row: LocationProofRow) {
  const { uid, geometry, bbox, ...properties } = serializeProof(row);
  return {
    type: "Feature" as const,
    id: uid,
    geometry: geometry ?? null,
    ...(bbox && geometry?.type !== "Point" ? { bbox } : {}),
    properties: { uid, ...properties },
  };
}

export type OgcFeature = ReturnType<typeof toFeature>;
