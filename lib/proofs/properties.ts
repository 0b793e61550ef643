import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";
import type { ProofRow } from "./rows.js";
import { isoString } from "./timestamps.js";

/**
 * The one catalogue of a location proof's properties. The native record (serializeProof), the OGC feature
 * properties, the OGC queryables and CQL2, sortby, and the API documents (OGC OpenAPI 3.0; the native OpenAPI 3.1)
 * all read it, so a property is added, renamed or described in one place.
 */

/** The kinds of value a property holds; each has one JSON Schema (jsonSchemaOf). */
export type PropertyType =
  /** free text */
  | "string"
  /** 0x + 40 hex digits, lowercase */
  | "address"
  /** 0x + 64 hex digits, lowercase (uids, hashes) */
  | "hash"
  | "integer"
  | "number"
  | "boolean"
  /** a UTC instant, ISO 8601 with milliseconds and Z */
  | "timestamp"
  /** an exact unsigned integer as a decimal string (a uint256 as on chain) */
  | "decimal"
  /** an array of strings */
  | "strings"
  /** a GeoJSON geometry (RFC 7946, longitude first) */
  | "geometry"
  /** [west, south, east, north]; west > east when the geometry crosses the antimeridian (RFC 7946 §5.2) */
  | "bbox"
  /** a JSON object */
  | "object";

export type ProofProperty = {
  /** the name in the native record and in the OGC feature's properties (snake_case) */
  readonly name: string;
  readonly type: PropertyType;
  readonly nullable: boolean;
  readonly description: string;
  readonly example: unknown;
  /** a client may order by it (OGC sortby) */
  readonly sortable: boolean;
  /** a CQL2 filter may name it (OGC queryables) */
  readonly queryable: boolean;
  /**
   * false for the members an OGC feature carries outside `properties` (its geometry and bbox); every other
   * property is in the native record and in the feature's properties alike.
   */
  readonly ogcProperty: boolean;
  /** the column a sortable or queryable property is read from */
  readonly column?: AnyColumn;
  readonly value: (row: ProofRow) => unknown;
  /**
   * The same value as PostgreSQL writes it into JSON (row_to_json, lib/proofs/json-sql.ts): the SQL expression
   * whose JSON is that of `value` (tests/proofs/json-sql.test.ts holds the two equal).
   */
  readonly source: SQL;
};

const iso = (d: Date | null): string | null => (d ? isoString(d) : null);

/**
 * A timestamp as `iso` writes it: ISO 8601 in UTC with milliseconds. (Stored instants lie in years 0001–9999: the
 * driver writes them with toISOString, whose expanded years past 9999 PostgreSQL refuses.)
 */
const isoSql = (c: AnyColumn): SQL => sql`to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Numbers as text joined into a JSON array: float8's text is the shortest that reads back exactly, as in JS. */
export const numberArraySql = (columns: AnyColumn[]): SQL =>
  sql`case when ${sql.join(
    columns.map((c) => sql`${c} is null`),
    sql` or `,
  )} then null else ('[' || ${sql.join(
    columns.map((c) => sql`${c}::text`),
    sql` || ',' || `,
  )} || ']')::json end`;

const UID = "0x6c1f4d9e7a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d";
const PROVER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

type Options = Partial<
  Pick<ProofProperty, "sortable" | "queryable" | "ogcProperty" | "column" | "source" | "value">
>;

/** The row's field and the table's column a property `name` reads unless told otherwise: its camelCase. */
const fieldOf = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * A property's SQL source when not given: its column (the table's column of its name when it names none), timestamps
 * as `isoSql`, decimals as their text.
 */
function sourceOf(type: PropertyType, column: AnyColumn | undefined, name: string): SQL {
  const read = column ?? (p as unknown as Record<string, AnyColumn | undefined>)[fieldOf(name)];
  if (!read) throw new Error(`property ${name}: a source or a column is needed`);
  if (type === "timestamp") return isoSql(read);
  if (type === "decimal") return sql`${read}::text`;
  return sql`${read}`;
}

/** A property's value when not given: the row's field of its name, timestamps as `iso`. */
function fieldValue(type: PropertyType, name: string): (row: ProofRow) => unknown {
  const field = fieldOf(name);
  const read = (row: ProofRow) => (row as unknown as Record<string, unknown>)[field];
  return type === "timestamp" ? (row) => iso(read(row) as Date | null) : read;
}

const prop = (
  name: string,
  type: PropertyType,
  nullable: boolean,
  description: string,
  example: unknown,
  options: Options = {},
): ProofProperty => ({
  name,
  type,
  nullable,
  description,
  example,
  value: options.value ?? fieldValue(type, name),
  sortable: options.sortable ?? false,
  queryable: options.queryable ?? false,
  ogcProperty: options.ogcProperty ?? true,
  ...(options.column ? { column: options.column } : {}),
  source: options.source ?? sourceOf(type, options.column, name),
});

/** In the order of the native record. */
export const PROOF_PROPERTIES: readonly ProofProperty[] = [
  prop("uid", "hash", false, "Attestation uid (the OGC feature id)", UID, {
    column: p.uid,
    sortable: true,
    queryable: true,
  }),
  prop("chain", "string", false, "Blockchain network name", "base", {
    column: p.chain,
    sortable: true,
    queryable: true,
  }),
  prop("chain_id", "integer", false, "EVM chain id", 8453, { column: p.chainId, queryable: true }),
  prop("prover", "address", false, "Address of the proof creator (attester)", PROVER, {
    column: p.prover,
    sortable: true,
    queryable: true,
  }),
  prop(
    "subject",
    "address",
    false,
    "Address the proof is about (recipient)",
    "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    { column: p.subject, sortable: true, queryable: true },
  ),
  prop(
    "event_timestamp",
    "timestamp",
    true,
    "When the located event happened (null when the attestation gives none)",
    "2026-11-22T10:15:00.000Z",
    { column: p.eventTimestamp, sortable: true, queryable: true },
  ),
  prop(
    "event_timestamp_raw",
    "decimal",
    true,
    "eventTimestamp exactly as attested (Unix seconds, uint256)",
    "1795342500",
  ),
  prop(
    "location_type",
    "string",
    true,
    "Encoding of the location (DecimalDegrees<string>, geojson-polygon, wkt, geohash, …)",
    "DecimalDegrees<string>",
    { column: p.locationType, queryable: true },
  ),
  prop(
    "latitude",
    "number",
    true,
    "Latitude of the representative point, a point on or in the geometry (null without valid coordinates)",
    52.52,
    { column: p.latitude, sortable: true, queryable: true },
  ),
  prop(
    "longitude",
    "number",
    true,
    "Longitude of the representative point, a point on or in the geometry (null without valid coordinates)",
    13.405,
    { column: p.longitude, sortable: true, queryable: true },
  ),
  prop("location", "string", true, "The location exactly as attested", "13.405, 52.52"),
  prop("srs", "string", true, "Spatial reference system of the location", "EPSG:4326", {
    column: p.srs,
    queryable: true,
  }),
  prop(
    "geometry",
    "geometry",
    true,
    "The decoded location as GeoJSON (Point, LineString, Polygon, …); null without valid geographic data",
    { type: "Point", coordinates: [13.405, 52.52] },
    { ogcProperty: false },
  ),
  prop(
    "bbox",
    "bbox",
    true,
    "Bounds of the geometry: [west, south, east, north]; west > east when it crosses the antimeridian",
    [13.405, 52.52, 13.405, 52.52],
    {
      value: (r) =>
        r.minLon === null || r.minLat === null || r.maxLon === null || r.maxLat === null
          ? null
          : [r.minLon, r.minLat, r.maxLon, r.maxLat],
      ogcProperty: false,
      source: numberArraySql([p.minLon, p.minLat, p.maxLon, p.maxLat]),
    },
  ),
  prop("revoked", "boolean", false, "Whether the attestation has been revoked", false, {
    column: p.revoked,
    queryable: true,
  }),
  prop("revocation_time", "timestamp", true, "When it was revoked (null while not revoked)", null),
  prop(
    "attestation_time",
    "timestamp",
    false,
    "When the attestation was made (block time)",
    "2026-11-22T10:15:03.000Z",
    { column: p.attestationTime, sortable: true, queryable: true },
  ),
  prop("expiration_time", "timestamp", true, "When the attestation expires (null: never)", null),
  prop("recipe_type", "strings", true, "Proof recipe types", ["gps"], {
    column: p.recipeType,
    queryable: true,
  }),
  prop("recipe_payload", "strings", true, "Proof recipe payloads (hex)", ["0x01"]),
  prop("media_type", "strings", true, "Media types of attached media", ["image/jpeg"], {
    column: p.mediaType,
    queryable: true,
  }),
  prop("media_data", "strings", true, "Attached media (URIs or data)", ["ipfs://bafy…"]),
  prop("memo", "string", true, "Free-text memo", "Berlin", { column: p.memo, queryable: true }),
  prop(
    "schema_uid",
    "hash",
    false,
    "EAS schema uid of the attestation: the schema whose fields it was decoded by (GET /api/v0/config lists each chain's)",
    UID,
    { column: p.schemaUid, queryable: true },
  ),
  prop("ref_uid", "hash", true, "uid of a referenced attestation (null: none)", null),
  prop("block_number", "integer", true, "Block of the attestation (null for an off-chain record)", 12, {
    column: p.blockNumber,
    sortable: true,
    queryable: true,
  }),
  prop("tx_hash", "hash", true, "Transaction of the attestation (null for an off-chain record)", UID),
  prop(
    "decode_error",
    "string",
    true,
    "Why the attestation data did not decode against the schema (null when it did; the raw fields are then null)",
    null,
  ),
  prop(
    "protocol_version",
    "string",
    true,
    "Location Protocol version of the record: its attested lp_version as major.minor when it reads as one, else its schema's (0.1 for the v0.1 schema, 0.2 for the protocol's base fields); null for a schema that is not the protocol's",
    "0.1",
    { column: p.protocolVersion, queryable: true },
  ),
  prop(
    "lp_version",
    "string",
    true,
    "The version field exactly as attested (lp_version, lpVersion or specVersion; a number as text); null when the schema has none",
    null,
  ),
  prop(
    "location_type_normalized",
    "string",
    true,
    "location_type in the Location Protocol's vocabulary (coordinate-decimal+lon-lat, geojson-point, geojson-line, geojson-polygon, geojson, h3, geohash, wkt, address, scaledCoordinates, coordinate-decimal+lat-lon); null when it cannot be told without guessing (decode_warning says why)",
    "coordinate-decimal+lon-lat",
    { column: p.locationTypeNormalized, queryable: true },
  ),
  prop(
    "application_fields",
    "object",
    true,
    "The schema's fields other than the record's own, decoded, by name (integers wider than 48 bits as exact decimal strings, bytes and addresses as hex); null when the schema has none",
    null,
  ),
  prop(
    "decode_warning",
    "string",
    true,
    "Why the location has no coordinates, or what was not taken as written (an axis order or a repeated value is never guessed); null when it decoded as declared",
    null,
  ),
  // Where the record comes from (lib/proofs/source.ts): an off-chain record is the row without a block (on-chain rows
  // always have one), so these read the same on the on-chain table and on the lists' derived tables.
  prop(
    "source",
    "string",
    false,
    "Where the record comes from: onchain (an attestation on a chain, indexed from its events) or offchain (an EIP-712-signed off-chain attestation published to this service, verified before it was stored)",
    "onchain",
    {
      source: sql`(case when ${p.blockNumber} is null then 'offchain' else 'onchain' end)`,
      value: (row) => (row.blockNumber === null ? "offchain" : "onchain"),
    },
  ),
  prop(
    "signer",
    "address",
    true,
    "The address whose signature an off-chain record carries (also its prover); null for an on-chain attestation",
    null,
    {
      source: sql`(case when ${p.blockNumber} is null then ${p.prover} end)`,
      value: (row) => (row.blockNumber === null ? row.prover : null),
    },
  ),
  prop(
    "published_at",
    "timestamp",
    true,
    "When this service accepted an off-chain record; null for an on-chain attestation",
    null,
    {
      source: sql`(case when ${p.blockNumber} is null then ${isoSql(p.indexedAt)} end)`,
      value: (row) => (row.blockNumber === null ? iso(row.indexedAt) : null),
    },
  ),
];

const BY_NAME = new Map(PROOF_PROPERTIES.map((q) => [q.name, q]));

/** A property by name; own entries only, so `constructor` or `__proto__` name nothing. */
export const proofProperty = (name: string): ProofProperty | undefined => BY_NAME.get(name);

export const SORTABLE_PROPERTIES = PROOF_PROPERTIES.filter((q) => q.sortable);
export const QUERYABLE_PROPERTIES = PROOF_PROPERTIES.filter((q) => q.queryable);
/** What an OGC feature carries in `properties`: every property but the geometry and its bbox. */
export const OGC_PROPERTIES = PROOF_PROPERTIES.filter((q) => q.ogcProperty);

/**
 * A record builder for a list of properties: each record starts as a copy of a template that already holds every
 * key, in order, so all records share one object layout and setting a value never changes it. Objects grown one
 * computed key at a time turn into dictionary objects past a dozen keys, slower both to build and to stringify.
 */
function recordBuilder(properties: readonly ProofProperty[]): (row: ProofRow) => Record<string, unknown> {
  const template: Record<string, unknown> = Object.fromEntries(properties.map((q) => [q.name, null]));
  return (row) => {
    const out = { ...template };
    for (const q of properties) out[q.name] = q.value(row);
    return out;
  };
}

/** A proof as the native API returns it: every property of the catalogue, in its order. */
export const serializeProof = recordBuilder(PROOF_PROPERTIES);

/** The properties object of an OGC feature (the same values as the native record). */
export const ogcProperties = recordBuilder(OGC_PROPERTIES);

const BASE_SCHEMA: Record<PropertyType, Record<string, unknown>> = {
  string: { type: "string" },
  address: { type: "string", pattern: "^0x[0-9a-f]{40}$" },
  hash: { type: "string", pattern: "^0x[0-9a-f]{64}$" },
  integer: { type: "integer" },
  number: { type: "number" },
  boolean: { type: "boolean" },
  timestamp: { type: "string", format: "date-time" },
  decimal: { type: "string", pattern: "^[0-9]+$" },
  strings: { type: "array", items: { type: "string" } },
  geometry: { type: "object", required: ["type"] },
  bbox: { type: "array", items: { type: "number" }, minItems: 4, maxItems: 4 },
  object: { type: "object" },
};

/** The JSON Schema of a property's non-null values (what a CQL2 literal compared with it must be). */
export const valueSchema = (q: ProofProperty): Record<string, unknown> => ({ ...BASE_SCHEMA[q.type] });

/**
 * The JSON Schema of a property, null included: "openapi-3.0" marks a null with `nullable: true`, "2020-12" (JSON
 * Schema, OpenAPI 3.1) with a type list.
 */
export function jsonSchemaOf(q: ProofProperty, dialect: "openapi-3.0" | "2020-12"): Record<string, unknown> {
  const base: Record<string, unknown> = {
    ...BASE_SCHEMA[q.type],
    description: q.description,
    example: q.example,
  };
  if (!q.nullable) return base;
  if (dialect === "openapi-3.0") return { ...base, nullable: true };
  return { ...base, type: [base.type as string, "null"] };
}
