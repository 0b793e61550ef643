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
    longitude: snapped(loc.longitude),
    latitude: snapped(loc.latitude),
    minLon: snapped(loc.bbox?.[0] ?? null),
    minLat: snapped(loc.bbox?.[1] ?? null),
    maxLon: snapped(loc.bbox?.[2] ?? null),
    maxLat: snapped(loc.bbox?.[3] ?? null),
    ...(loc.type === undefined
      ? {}
      : { locationTypeNormalized: loc.type, decodeWarning: loc.problem ?? null }),
  };
}

/**
 * Coordinates within this many degrees of zero are stored as zero in the point and bounds columns (the attested
 * geometry is kept as attested). Why: GiST's box arithmetic multiplies extents with an underflow check, so a point
 * at a subnormal distance from zero (an attested [1e-200, 1e-200] is valid GeoJSON) beside the proofs at [0, 0]
 * made an insert fail with "value out of range: underflow", and the sync stop at that attestation for good.
 * Snapped, every non-zero extent is at least the spacing of doubles near SNAP, whose products stay far from
 * underflow. Migration 0008 snapped the rows stored before.
 */
export const SNAP = 1e-100;

const snapped = (x: number | null): number | null => (x !== null && Math.abs(x) < SNAP ? 0 : x);
