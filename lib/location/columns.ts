import type { NewLocationProofRow } from "../../db/schema.js";
import type { DecodedLocation } from "./decode.js";

/** The location_proofs columns a decoded location fills: the geometry, its representative point and its bbox. */
export function locationColumns(
  loc: DecodedLocation,
): Pick<
  NewLocationProofRow,
  "geometry" | "longitude" | "latitude" | "minLon" | "minLat" | "maxLon" | "maxLat"
> {
  return {
    geometry: loc.geometry,
    longitude: loc.longitude,
    latitude: loc.latitude,
    minLon: loc.bbox?.[0] ?? null,
    minLat: loc.bbox?.[1] ?? null,
    maxLon: loc.bbox?.[2] ?? null,
    maxLat: loc.bbox?.[3] ?? null,
  };
}
