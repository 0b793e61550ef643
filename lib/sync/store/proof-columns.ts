import { sql } from "drizzle-orm";
import type { NewLocationProofRow } from "../../../db/schema.js";

/** The columns decoded from an attestation's data (lib/sync/decode-attestation.ts decodedColumns). */
export const DECODED = [
  "decode_error",
  "protocol_version",
  "lp_version",
  "location_type_normalized",
  "application_fields",
  "decode_warning",
  "decoder_version",
  "event_timestamp",
  "event_timestamp_raw",
  "srs",
  "location_type",
  "location",
  "recipe_type",
  "recipe_payload",
  "media_type",
  "media_data",
  "memo",
  "geometry",
  "longitude",
  "latitude",
  "min_lon",
  "min_lat",
  "max_lon",
  "max_lat",
] as const;

/** Columns an idempotent re-index may refresh; revocation state is only ever set by revocations (or undone by a rewind). */
const REFRESHED = [
  "chain",
  "schema_uid",
  "prover",
  "subject",
  "attestation_time",
  "expiration_time",
  "revocable",
  "ref_uid",
  "block_number",
  "block_hash",
  "tx_hash",
  "log_index",
  "data",
  ...DECODED,
] as const;

/** Every column the engine writes, in the order of COLUMNS. */
export const INSERTED = ["chain_id", "uid", ...REFRESHED] as const;
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const COLUMNS = sql.raw(INSERTED.join(", "));
export const UPSERT_SET = sql.raw(REFRESHED.map((c) => `${c} = excluded.${c}`).join(", "));

/**
 * Rows travel as one JSON parameter expanded by json_populate_recordset: one statement per batch whatever its size
 * (no bound-parameter limit), and faster than a multi-row VALUES insert on PostgreSQL and PGlite alike.
 */
export function rowsJson(rows: NewLocationProofRow[]): string {
  return JSON.stringify(
    rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [snake(k), v]))),
  );
}
