import type { NewLocationProofRow } from "../../db/schema.js";
import type { DecodedLocation } from "./decode.js";

/**
 * The location_proofs columns a decoded location fills: the geometry, its representative point and its bbox, and,
 * when the decoder says, the normalised location type and the decode warning.
 */
export function locationColumns(
  loc: Pick<DecodedLocation, "geometry" | "longitude" | "latitude" | "bbox"> &
    Partial<Pick<DecodedLocation, "type" | "problem">>,
): Pick<
  NewLocationProofRow,
  | "geometry"
  | "longitude"
  | "latitude"
  | "minLon"
  | "minLat"
  | "maxLon"
  | "maxLat"
  | "locationTypeNormalized"
  | "decodeWarning"
> {
  return {
    geometry: loc.geometry,
    longitude: loc.longitude,
    latitude: loc.latitude,
    minLon: loc.bbox?.[0] ?? null,
    minLat: loc.bbox?.[1] ?? null,
    maxLon: loc.bbox?.[2] ?? null,
    maxLat: loc.bbox?.[3] ?? null,
    ...(loc.type === undefined
      ? {}
      : { locationTypeNormalized: loc.type, decodeWarning: loc.problem ?? null }),
  };
}
