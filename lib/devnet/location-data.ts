import { encodeAbiParameters, type Hex } from "viem";
import { locationSchemaParams } from "../sync/decode-attestation.js";

export type LocationProofInput = {
  /** Unix seconds; 0 = absent */
  eventTimestamp?: bigint;
  srs?: string;
  locationType: string;
  location: string;
  recipeType?: string[];
  recipePayload?: Hex[];
  mediaType?: string[];
  mediaData?: string[];
  memo?: string;
};

/** ABI-encodes a location proof as the schema's attestation data (what any EAS client sends). */
export function encodeLocationProof(p: LocationProofInput): Hex {
  return encodeAbiParameters(locationSchemaParams, [
    p.eventTimestamp ?? 0n,
    p.srs ?? "EPSG:4326",
    p.locationType,
    p.location,
    p.recipeType ?? [],
    p.recipePayload ?? [],
    p.mediaType ?? [],
    p.mediaData ?? [],
    p.memo ?? "",
  ]);
}
