import type { LocationProofRow } from "../../db/schema.js";

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * A proof as the native API returns it: snake_case, timestamps as UTC ISO 8601, exact big integers as strings.
 * `location` is the location string exactly as attested; `geometry` is its decoded GeoJSON (null when the proof has
 * no valid geographic data), and `bbox` that geometry's [minLon, minLat, maxLon, maxLat].
 */
export function serializeProof(row: LocationProofRow) {
  return {
    uid: row.uid,
    chain: row.chain,
    chain_id: row.chainId,
    prover: row.prover,
    subject: row.subject,
    event_timestamp: iso(row.eventTimestamp),
    event_timestamp_raw: row.eventTimestampRaw,
    location_type: row.locationType,
    latitude: row.latitude,
    longitude: row.longitude,
    location: row.location,
    srs: row.srs,
    geometry: row.geometry,
    bbox:
      row.minLon === null || row.minLat === null || row.maxLon === null || row.maxLat === null
        ? null
        : [row.minLon, row.minLat, row.maxLon, row.maxLat],
    revoked: row.revoked,
    revocation_time: iso(row.revocationTime),
    attestation_time: iso(row.attestationTime),
    expiration_time: iso(row.expirationTime),
    recipe_type: row.recipeType,
    recipe_payload: row.recipePayload,
    media_type: row.mediaType,
    media_data: row.mediaData,
    memo: row.memo,
    schema_uid: row.schemaUid,
    ref_uid: row.refUid,
    block_number: row.blockNumber,
    tx_hash: row.txHash,
    decode_error: row.decodeError,
  };
}
