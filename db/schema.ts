import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";
import { distinctBoxForm } from "./index-steering.js";

/** A GeoJSON geometry as stored (RFC 7946, longitude first). */
export type StoredGeometry = { type: string; coordinates?: unknown; geometries?: unknown[] };

type Bounds = { minLon: AnyPgColumn; minLat: AnyPgColumn; maxLon: AnyPgColumn; maxLat: AnyPgColumn };

/**
 * The bounds as one `box`, the expression the GiST index is built on and bbox filters query (lib/proofs/filter.ts
 * builds its conditions from this same function, so the planner recognises the index expression).
 *
 * Bounds that cross the antimeridian are stored as RFC 7946 writes them, west > east (170 … -170). PostgreSQL's
 * box() sorts its corners, so box(170, -170) would be the 340° box between; instead the east edge is unwrapped
 * past 180 (-170 → 190), giving the box [170, 190]. A query box is then tested as itself and shifted by 360°
 * (lib/proofs/filter.ts), so the same expression serves plain and crossing bounds alike.
 */
export const boundsBox = (t: Bounds) =>
  sql`box(point(${t.minLon}, ${t.minLat}), point(case when ${t.minLon} > ${t.maxLon} then ${t.maxLon} + 360 else ${t.maxLon} end, ${t.maxLat}))`;

/**
 * The representative point as a PostgreSQL `point`: the expression of the GiST index that a bbox on the OGC
 * location-proofs collection (whose features are that point) reads, created by migrations 0008 (on the proofs) and
 * 0010 (on the off-chain records) and not declared below because Drizzle cannot write its INCLUDE list. The index
 * also holds the order's keys and the coordinates, so the page of a small box sorts its matches from the index alone
 * and reads the table for the page's rows only (lib/proofs/query.ts, keysFirst). Null for a proof without
 * coordinates. Like the bounds' indexes, it relies on the stored coordinates being snapped near zero
 * (lib/location/columns.ts says why).
 */
export const representativePoint = (t: { longitude: AnyPgColumn; latitude: AnyPgColumn }) =>
  sql`point(${t.longitude}, ${t.latitude})`;

/**
 * The bounds lie within one cell of the 1° grid (whole-degree lines; west ≤ east, so not across the antimeridian):
 * the proofs proof_cell_counts counts. Null for a proof without geometry. The same expression is the predicate of
 * the partial GiST index over the other proofs (they are few: shapes across a grid line), so a bbox count can find
 * those through it (lib/proofs/cell-totals.ts).
 */
export const singleCell = (t: Bounds) =>
  sql`(${t.minLon} <= ${t.maxLon} and floor(${t.minLon}) = floor(${t.maxLon}) and floor(${t.minLat}) = floor(${t.maxLat}))`;

/**
 * boundsBox in a form of its own (translated by nothing), for the partial GiST index over the proofs that are not
 * singleCell: a condition on this expression can only be answered by that index (lib/proofs/filter.ts,
 * spanningBoundsIntersect).
 */
export const spanningBoundsBox = (t: Bounds) => distinctBoxForm(boundsBox(t));

/**
 * The attestation's own columns, as location_proofs and offchain_records both hold them (same names, types and
 * meaning). A function, so that each table gets column builders of its own; location_proofs adds its defaults.
 */
const attestationColumns = () => ({
  chainId: integer("chain_id").notNull(),
  uid: text("uid").notNull(),
  chain: text("chain").notNull(),
  schemaUid: text("schema_uid").notNull(),
  /** attester, lowercase 0x address */
  prover: text("prover").notNull(),
  /** recipient, lowercase 0x address */
  subject: text("subject").notNull(),
  attestationTime: timestamp("attestation_time", { withTimezone: true, mode: "date" }).notNull(),
  expirationTime: timestamp("expiration_time", { withTimezone: true, mode: "date" }),
  revocable: boolean("revocable").notNull(),
  refUid: text("ref_uid"),
  revoked: boolean("revoked").notNull().default(false),
  revocationTime: timestamp("revocation_time", { withTimezone: true, mode: "date" }),
});

/**
 * The columns decoded from the attestation data, as location_proofs and offchain_records both hold them, so one
 * record serializer (lib/proofs/properties.ts) reads both. A function, as attestationColumns.
 */
const decodedColumns = () => ({
  /** Raw attestation data (hex), kept even when it cannot be decoded. */
  data: text("data").notNull(),
  /** Null when the data decoded against the schema; otherwise why it did not. */
  decodeError: text("decode_error"),
  /** eventTimestamp as an instant; null when 0 (absent) or too large for a date. */
  eventTimestamp: timestamp("event_timestamp", { withTimezone: true, mode: "date" }),
  /** eventTimestamp exactly as on chain (uint256). */
  eventTimestampRaw: numeric("event_timestamp_raw"),
  srs: text("srs"),
  locationType: text("location_type"),
  /** The location string exactly as attested. */
  location: text("location"),
  recipeType: jsonb("recipe_type").$type<string[]>(),
  recipePayload: jsonb("recipe_payload").$type<string[]>(),
  mediaType: jsonb("media_type").$type<string[]>(),
  mediaData: jsonb("media_data").$type<string[]>(),
  memo: text("memo"),
  /**
   * The Location Protocol version the record follows: its own lp_version (lpVersion, specVersion) as major.minor
   * when that reads as a version, else its schema's (lib/sync/schemas.ts); null for a schema that is not the
   * protocol's (allowed by UID).
   */
  protocolVersion: text("protocol_version"),
  /** The attested version field exactly as written (a string, or a number as text); null when the schema has none. */
  lpVersion: text("lp_version"),
  /** location_type in the protocol's vocabulary (lib/location/vocabulary.ts); null when it cannot be normalised. */
  locationTypeNormalized: text("location_type_normalized"),
  /**
   * The schema's fields other than those the record takes by name (lib/sync/decode-attestation.ts), decoded, as one
   * object (big integers as exact strings, bytes as hex); null when the schema has none.
   */
  applicationFields: jsonb("application_fields").$type<Record<string, unknown>>(),
  /** Why the location has no coordinates, or what was not taken as written; null when it decoded as declared. */
  decodeWarning: text("decode_warning"),
  /**
   * Which decoder derived the decoded columns: rows of an older one are decoded again from `data` by the sync engine
   * (lib/sync/redecode.ts). DECODER_VERSION is the current one.
   */
  decoderVersion: smallint("decoder_version").notNull(),
  /** Decoded geometry; null when the location has no valid geographic data. */
  geometry: jsonb("geometry").$type<StoredGeometry>(),
  /** The representative point: a point on or in the geometry (lib/location/geometry.ts). */
  longitude: doublePrecision("longitude"),
  latitude: doublePrecision("latitude"),
  /** The bounds: west, south, east, north; west > east when the geometry crosses the antimeridian. */
  minLon: doublePrecision("min_lon"),
  minLat: doublePrecision("min_lat"),
  maxLon: doublePrecision("max_lon"),
  maxLat: doublePrecision("max_lat"),
});

const proofAttestation = attestationColumns();
const proofDecoded = decodedColumns();

/**
 * One row per location-proof attestation. Geometry lives in plain columns: the decoded GeoJSON, a representative
 * point and the geometry's bounds (west > east across the antimeridian), which a GiST index over a `box` expression
 * (boundsBox) serves for bbox filters on PGlite, PostgreSQL and Neon alike, faster than PostGIS for those. The exact
 * shape for CQL2's spatial functions is the PostGIS column `shape`, generated from `geometry` by migration 0006 and
 * not declared here (docs/development.md says why).
 */
export const locationProofs = pgTable(
  "location_proofs",
  {
    ...proofAttestation,
    revocable: proofAttestation.revocable.default(true),
    /** Block of the Revoked event that set `revoked`, so a reorg that orphans it can undo it. */
    revocationBlockNumber: bigint("revocation_block_number", { mode: "number" }),
    blockNumber: bigint("block_number", { mode: "number" }).notNull(),
    blockHash: text("block_hash").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    ...proofDecoded,
    /** Rows indexed before schemas were discovered are all v0.1's. */
    protocolVersion: proofDecoded.protocolVersion.default("0.1"),
    /** Rows of an older decoder are decoded again by the sync engine (lib/sync/redecode.ts). */
    decoderVersion: proofDecoded.decoderVersion.default(2),
    indexedAt: timestamp("indexed_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "location_proofs_pkey", columns: [t.chainId, t.uid] }),
    index("location_proofs_uid_idx").on(t.uid),
    // The default order of every list: newest first, ties broken by uid (then chain id, the rest of the key).
    // Migration 0012 adds INCLUDE (revoked), which Drizzle cannot write: the native list's deep offsets (revoked
    // proofs left out) walk it as an index-only scan.
    index("location_proofs_order_idx").on(t.eventTimestamp.desc().nullsLast(), t.uid, t.chainId),
    index("location_proofs_chain_idx").on(t.chain, t.eventTimestamp.desc().nullsLast()),
    index("location_proofs_prover_idx").on(t.prover, t.eventTimestamp.desc().nullsLast()),
    index("location_proofs_subject_idx").on(t.subject, t.eventTimestamp.desc().nullsLast()),
    index("location_proofs_block_idx").on(t.chainId, t.blockNumber),
    // The filters on schema, protocol version and normalised location type, each in the default order.
    index("location_proofs_schema_idx").on(t.schemaUid, t.eventTimestamp.desc().nullsLast()),
    index("location_proofs_protocol_version_idx").on(t.protocolVersion, t.eventTimestamp.desc().nullsLast()),
    index("location_proofs_location_type_normalized_idx").on(
      t.locationTypeNormalized,
      t.eventTimestamp.desc().nullsLast(),
    ),
    // The rows an older decoder wrote, for the sync engine to decode again (empty once it has).
    index("location_proofs_redecode_idx").on(t.chainId, t.uid).where(sql`${t.decoderVersion} < 2`),
    // Spatial filter: && on boxes, served by GiST. Rows without coordinates have null bounds and are not indexed.
    index("location_proofs_bounds_gist").using("gist", boundsBox(t)),
    // The few bounds that cross the antimeridian, apart: a plain query box meets their unwrapped east part 360°
    // east of itself, and a second condition on this small index (rather than on the one above) keeps the
    // planner's estimate for it small, so a bbox count is planned as it was before the second condition.
    index("location_proofs_crossing_bounds_gist")
      .using("gist", boundsBox(t))
      .where(sql`${t.minLon} > ${t.maxLon}`),
    // The proofs whose bounds are not within one 1° cell (singleCell): a bbox count adds them to the cell totals.
    index("location_proofs_spanning_bounds_gist")
      .using("gist", spanningBoundsBox(t))
      .where(sql`not ${singleCell(t)}`),
    // The vector tiles (lib/tiles/): the proofs of a tile at any zoom are one range of this key (proof_tile_key).
    index("location_proofs_tile_key_idx").on(sql`proof_tile_key(${t.longitude}, ${t.latitude})`),
    // The proofs without geometry by event time: under the OGC rule a bbox also matches them, so an OGC count with a
    // bbox and a datetime counts them apart (lib/proofs/count.ts, countParts), through this small index.
    index("location_proofs_no_geometry_time_idx").on(t.eventTimestamp).where(sql`${t.minLon} is null`),
    // sortby on each sortable property: a keyset page seeks to its cursor through the property's index, read
    // forward or backward (lib/proofs/sort.ts, keysetSegments); uid has its own, event_timestamp the order index.
    // Where a property's values are rare ties (times, block numbers, coordinates) its own index is enough: the few
    // rows of a tie are sorted by uid as they come. chain, prover and subject are few values each shared by many
    // proofs, so their indexes hold the whole order, (value, uid, chain id), once per direction (the tiebreak stays
    // ascending when the value descends): else every page sorts the rest of a chain, or of a busy prover's proofs.
    // The proofs without a point (5%) or without an event time (2%), in uid order, for the nulls part of a
    // longitude, latitude or event time sort.
    index("location_proofs_chain_sort_idx").on(t.chain, t.uid, t.chainId),
    index("location_proofs_chain_desc_sort_idx").on(t.chain.desc(), t.uid, t.chainId),
    index("location_proofs_prover_sort_idx").on(t.prover, t.uid, t.chainId),
    index("location_proofs_prover_desc_sort_idx").on(t.prover.desc(), t.uid, t.chainId),
    index("location_proofs_subject_sort_idx").on(t.subject, t.uid, t.chainId),
    index("location_proofs_subject_desc_sort_idx").on(t.subject.desc(), t.uid, t.chainId),
    index("location_proofs_no_time_uid_idx").on(t.uid, t.chainId).where(sql`${t.eventTimestamp} is null`),
    index("location_proofs_attestation_time_idx").on(t.attestationTime),
    index("location_proofs_block_number_idx").on(t.blockNumber),
    index("location_proofs_longitude_idx").on(t.longitude),
    index("location_proofs_latitude_idx").on(t.latitude),
    index("location_proofs_no_longitude_uid_idx").on(t.uid, t.chainId).where(sql`${t.longitude} is null`),
    index("location_proofs_no_latitude_uid_idx").on(t.uid, t.chainId).where(sql`${t.latitude} is null`),
    // min()/max() for the collection extent without a scan.
    index("location_proofs_min_lon_idx").on(t.minLon),
    index("location_proofs_max_lon_idx").on(t.maxLon),
    index("location_proofs_min_lat_idx").on(t.minLat),
    index("location_proofs_max_lat_idx").on(t.maxLat),
    // The location columns come from one decoded geometry and are null together: so "no geometry" is one
    // indexed condition (min_lon is null) for the point, the shape and proof_counts alike.
    check(
      "location_proofs_location_columns_check",
      sql`(${t.geometry} is null) = (${t.minLon} is null) and (${t.longitude} is null) = (${t.minLon} is null) and (${t.latitude} is null) = (${t.minLon} is null) and (${t.minLat} is null) = (${t.minLon} is null) and (${t.maxLon} is null) = (${t.minLon} is null) and (${t.maxLat} is null) = (${t.minLon} is null)`,
    ),
  ],
);

/**
 * Exact row counts of location_proofs per (chain, revoked, has bounds, has a point), kept by statement-level triggers
 * in the same transaction as every insert, update and delete (db/migrations/0000_baseline.sql). They answer the counts
 * of the commonest lists — no filter, a chain, revoked or not, with coordinates, a bbox covering the world — without
 * visiting every matching row (an exact COUNT's cost grows with its matches; docs/architecture.md, "Counts").
 */
export const proofCounts = pgTable(
  "proof_counts",
  {
    chain: text("chain").notNull(),
    revoked: boolean("revoked").notNull(),
    /** min_lon is not null: the proof has a bbox (what a world bbox matches) */
    hasBounds: boolean("has_bounds").notNull(),
    /** longitude is not null: the proof has a representative point (filter=hasCoordinates) */
    hasPoint: boolean("has_point").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ name: "proof_counts_pkey", columns: [t.chain, t.revoked, t.hasBounds, t.hasPoint] })],
);

/**
 * Exact row counts of location_proofs per (chain, revoked, UTC day of event_timestamp), day null for the proofs
 * without an event time; kept by statement-level triggers like proof_counts. A time-window count
 * adds up the whole days inside the window here and counts only the rows of its two partial edge days, so a year's
 * window costs a few hundred small rows, not a visit of every match (lib/proofs/totals.ts).
 */
export const proofDayCounts = pgTable(
  "proof_day_counts",
  {
    chain: text("chain").notNull(),
    revoked: boolean("revoked").notNull(),
    day: date("day", { mode: "string" }),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [unique("proof_day_counts_key").on(t.chain, t.revoked, t.day).nullsNotDistinct()],
);

/**
 * Exact row counts of the proofs whose bounds lie within one 1° cell (singleCell), per (chain, revoked, cell: the
 * floor of west and south), kept by statement-level triggers like proof_counts. A bbox count adds
 * up the cells wholly inside the box here, and counts rows only along the box's edges and for the few proofs that
 * span a grid line (lib/proofs/cell-totals.ts).
 */
export const proofCellCounts = pgTable(
  "proof_cell_counts",
  {
    chain: text("chain").notNull(),
    revoked: boolean("revoked").notNull(),
    cellLon: smallint("cell_lon").notNull(),
    cellLat: smallint("cell_lat").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ name: "proof_cell_counts_pkey", columns: [t.chain, t.revoked, t.cellLon, t.cellLat] }),
    // A bbox reads a range of cells whatever the chain (the key above leads with chain): without this, a sum over a
    // continent's cells scans the whole table.
    index("proof_cell_counts_cell_idx").on(t.cellLon, t.cellLat),
  ],
);

/**
 * The proofs per cell of the WebMercatorQuad grid, for the vector tiles (lib/tiles/): per (level, cell, chain), the
 * number of proofs whose representative point is in the cell, the sums of their world pixels (lib/tiles/
 * web-mercator.ts), so a cell's mean position is exact too, and the XOR of their uids, which is the uid of a cell's one
 * proof. Kept by statement-level triggers like proof_counts, on the levels TILE_COUNT_LEVELS: a tile at zoom z reads
 * its 8 × 8 clusters from level z + 3 (or its 16 × 16 cells from level z + 4) — at most a few hundred rows where its
 * proofs may be a million.
 */
export const proofTileCounts = pgTable(
  "proof_tile_counts",
  {
    level: smallint("level").notNull(),
    x: integer("x").notNull(),
    y: integer("y").notNull(),
    chain: text("chain").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
    /** sums of the proofs' world pixels (wx, wy < 2^32) */
    sx: bigint("sx", { mode: "number" }).notNull(),
    sy: bigint("sy", { mode: "number" }).notNull(),
    /** the XOR of the proofs' uids, as four 64-bit parts: a cell of one proof holds its uid */
    u0: bigint("u0", { mode: "number" }).notNull(),
    u1: bigint("u1", { mode: "number" }).notNull(),
    u2: bigint("u2", { mode: "number" }).notNull(),
    u3: bigint("u3", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ name: "proof_tile_counts_pkey", columns: [t.level, t.x, t.y, t.chain] })],
);

/**
 * Exact row counts of location_proofs per (chain, schema, protocol version, revoked, has a point), kept by
 * statement-level triggers like proof_counts: the stats' counts per schema and per protocol version without visiting
 * the proofs.
 */
export const proofSchemaCounts = pgTable(
  "proof_schema_counts",
  {
    chain: text("chain").notNull(),
    schemaUid: text("schema_uid").notNull(),
    /** "" for the proofs without one (a schema allowed by UID that is not the protocol's): a key has no nulls */
    protocolVersion: text("protocol_version").notNull(),
    revoked: boolean("revoked").notNull(),
    hasPoint: boolean("has_point").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({
      name: "proof_schema_counts_pkey",
      columns: [t.chain, t.schemaUid, t.protocolVersion, t.revoked, t.hasPoint],
    }),
  ],
);

export type LocationProofRow = typeof locationProofs.$inferSelect;
export type NewLocationProofRow = typeof locationProofs.$inferInsert;

/**
 * Sync state, one row per chain: the cursor (last block fully indexed, moved in the same transaction as the rows it
 * covers), the lease that keeps one writer per chain, the worker's pause flag and the adaptive eth_getLogs range.
 * Persisted here, never in process memory: every cron invocation may be a fresh cold start.
 */
export const syncState = pgTable("sync_state", {
  chainId: integer("chain_id").primaryKey(),
  chain: text("chain").notNull(),
  /** Last block whose logs are all stored; null: nothing indexed yet (start at the chain's start block). */
  cursorBlock: bigint("cursor_block", { mode: "number" }),
  cursorBlockTime: timestamp("cursor_block_time", { withTimezone: true, mode: "date" }),
  /** Latest chain head seen by a run, for status when the chain cannot be asked. */
  headBlock: bigint("head_block", { mode: "number" }),
  headCheckedAt: timestamp("head_checked_at", { withTimezone: true, mode: "date" }),
  /** eth_getLogs range (blocks) that last succeeded; grows on success, shrinks to what a provider accepts. */
  rangeSize: integer("range_size"),
  leaseOwner: text("lease_owner"),
  leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true, mode: "date" }),
  /**
   * When the holder last renewed the lease: it does so every third of the lease period while its run is alive, so a
   * lease not renewed for two of those beats belongs to a writer that died or stalled (lib/sync/writer-health.ts).
   */
  leaseHeartbeatAt: timestamp("lease_heartbeat_at", { withTimezone: true, mode: "date" }),
  /** Runs in a row that found the lease held by another writer, and since when; reset when a run takes the lease. */
  leaseSkips: integer("lease_skips").notNull().default(0),
  skippedSince: timestamp("skipped_since", { withTimezone: true, mode: "date" }),
  /**
   * Schema discovery (lib/sync/discovery.ts): the last block whose SchemaRegistry `Registered` events are all read,
   * moved in the same transaction as the schemas it found; null before the first. Attestations are indexed up to it,
   * never beyond, so every schema registered in an indexed block is known. Its own eth_getLogs range size.
   */
  schemaCursorBlock: bigint("schema_cursor_block", { mode: "number" }),
  schemaRangeSize: integer("schema_range_size"),
  paused: boolean("paused").notNull().default(false),
  pausedAt: timestamp("paused_at", { withTimezone: true, mode: "date" }),
  /**
   * Revocation reconciliation (lib/sync/revocations.ts): the last uid checked in the current pass (null: the next
   * call starts a pass), how many proofs the pass has checked, when it started and when the last pass completed.
   * Moved in the same transaction as the revocations each page writes, under the chain's lease.
   */
  reconcileCursor: text("reconcile_cursor"),
  reconcileChecked: bigint("reconcile_checked", { mode: "number" }).notNull().default(0),
  reconcilePassStartedAt: timestamp("reconcile_pass_started_at", { withTimezone: true, mode: "date" }),
  reconcileCompletedAt: timestamp("reconcile_completed_at", { withTimezone: true, mode: "date" }),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * Hashes of indexed blocks (each committed range's last block and every block that held one of our logs). A stored
 * hash that is no longer canonical means a reorg: the engine rewinds to the newest block whose hash still matches.
 */
export const syncBlocks = pgTable(
  "sync_blocks",
  {
    chainId: integer("chain_id").notNull(),
    blockNumber: bigint("block_number", { mode: "number" }).notNull(),
    blockHash: text("block_hash").notNull(),
  },
  (t) => [primaryKey({ name: "sync_blocks_pkey", columns: [t.chainId, t.blockNumber] })],
);

/**
 * The schemas a chain's indexer knows (lib/sync/schemas.ts): every schema discovered as a location schema by its
 * field names, the v0.1 schema, and those an operator allowed by UID; with its string, where it was registered and
 * whether its attestations are indexed:
 * - `live`: in the chain's attestation stream, indexed up to the chain's cursor;
 * - `backfill`: indexed alone from `backfill_from` up to `backfill_cursor`, joining the stream when it reaches the
 *   chain's cursor (a schema allowed, or discovered, after the cursor passed its registration);
 * - `off`: recognised but not indexed (denied, or "known schemas only"), its rows removed.
 */
export const chainSchemas = pgTable(
  "chain_schemas",
  {
    chainId: integer("chain_id").notNull(),
    uid: text("uid").notNull(),
    /** the schema string as registered (e.g. "string srs,string location_type,string location,uint8 lp_version") */
    schema: text("schema").notNull(),
    resolver: text("resolver"),
    revocable: boolean("revocable"),
    /** recognised as a location schema by its field names (or the v0.1 UID) */
    location: boolean("location").notNull(),
    /** "0.1" (the v0.1 schema) or "0.2" (the protocol's base fields); null for a non-location schema allowed by UID */
    protocolVersion: text("protocol_version"),
    /** block of its Registered event; null when discovery never saw it (known by UID, registered before the start) */
    registeredBlock: bigint("registered_block", { mode: "number" }),
    /** live | backfill | off */
    state: text("state").notNull(),
    backfillFrom: bigint("backfill_from", { mode: "number" }),
    /** last block backfilled (backfill_from − 1 before the first) */
    backfillCursor: bigint("backfill_cursor", { mode: "number" }),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "chain_schemas_pkey", columns: [t.chainId, t.uid] }),
    check("chain_schemas_state_check", sql`${t.state} in ('live', 'backfill', 'off')`),
  ],
);

export type ChainSchemaRow = typeof chainSchemas.$inferSelect;

/** One row per sync or reconciliation run, for the status endpoint and for operators. */
export const syncRuns = pgTable(
  "sync_runs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    chainId: integer("chain_id").notNull(),
    chain: text("chain").notNull(),
    /** sync | revocations */
    kind: text("kind").notNull(),
    /** cron | manual | backfill */
    trigger: text("trigger").notNull(),
    /** running | ok | partial | skipped | error | abandoned (its writer stopped heartbeating: killed or stalled) */
    status: text("status").notNull(),
    /** the writer (sync service instance) that ran it: the lease owner while it held the lease */
    owner: text("owner"),
    /** why a run was skipped (paused; lease held by … until …) */
    reason: text("reason"),
    /** renewed with the lease while the run is alive; a running run without one for a lease period is abandoned */
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true, mode: "date" }),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
    fromBlock: bigint("from_block", { mode: "number" }),
    toBlock: bigint("to_block", { mode: "number" }),
    attestations: integer("attestations").notNull().default(0),
    revocations: integer("revocations").notNull().default(0),
    /** blocks rewound because of a reorg */
    rewound: integer("rewound").notNull().default(0),
    rpcRequests: integer("rpc_requests").notNull().default(0),
    error: text("error"),
  },
  (t) => [index("sync_runs_chain_idx").on(t.chainId, t.startedAt.desc())],
);

/**
 * Deletes that take more than one transaction (lib/sync/deletes.ts), done in batches by the chain's sync runs under
 * its lease, each batch one statement so the count tables' triggers keep the counts exact after every batch:
 * - `rewind`: the rows of blocks above `above_block` (a reorg's orphaned blocks), then the revocations made above it
 *   undone; the chain's cursor is already back at `above_block`, and indexing waits until the rewind is done;
 * - `removal`: an operator's removal (scripts/remove-proofs.ts) of a chain's rows, or a schema's (`schema_uid`), or
 *   listed uids (`uids`), of blocks up to `up_to_block` (the cursor when it was queued: later rows stay).
 * `rows_total` is what matched when queued and `rows_deleted` what went since, so the status shows what remains
 * without counting; `completed_at` is set by the batch that found nothing more.
 */
export const syncDeletes = pgTable(
  "sync_deletes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    chainId: integer("chain_id").notNull(),
    /** rewind | removal */
    kind: text("kind").notNull(),
    aboveBlock: bigint("above_block", { mode: "number" }),
    upToBlock: bigint("up_to_block", { mode: "number" }),
    schemaUid: text("schema_uid"),
    uids: text("uids").array(),
    rowsTotal: bigint("rows_total", { mode: "number" }).notNull().default(0),
    rowsDeleted: bigint("rows_deleted", { mode: "number" }).notNull().default(0),
    /** who queued it: the writer of a rewind, `remove-proofs:<pid>` for the script */
    requestedBy: text("requested_by"),
    requestedAt: timestamp("requested_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("sync_deletes_pending_idx").on(t.chainId, t.id).where(sql`${t.completedAt} is null`),
    check("sync_deletes_kind_check", sql`${t.kind} in ('rewind', 'removal')`),
  ],
);

export type SyncDeleteRow = typeof syncDeletes.$inferSelect;

export type SyncStateRow = typeof syncState.$inferSelect;
export type SyncRunRow = typeof syncRuns.$inferSelect;

/**
 * Off-chain location records (lib/offchain/): EIP-712-signed EAS attestations that were never sent to a chain,
 * published to this service and verified before they were stored. A table of their own, beside location_proofs, not
 * a `source` column in it: the on-chain table's counts (proof_counts and its siblings, kept by triggers), its indexes
 * and its sync bookkeeping (blocks, reorgs, revocation reconciliation against the chain) keep their meaning and their
 * speed untouched, and the sync engine never meets a row it did not write. The decoded columns carry the same names
 * and meaning as location_proofs' (attestationColumns, decodedColumns), so one record serializer
 * (lib/proofs/properties.ts) reads both. Here chain_id is the chain of the signature's EIP-712 domain (its EAS
 * contract is the verifyingContract); prover is the address the signature recovers. `revoked`, `revocation_time` and
 * `timestamped_at` follow the chain's off-chain events (offchainChainEvents, lib/offchain/chain-events.ts): the sync
 * engine reads them, and each change of them is worked out again from the stored events, so a reorg undoes it.
 */
export const offchainRecords = pgTable(
  "offchain_records",
  {
    ...attestationColumns(),
    ...decodedColumns(),
    /** the EAS off-chain attestation version (1 or 2) */
    offchainVersion: smallint("offchain_version").notNull(),
    /** the EIP-712 domain's version (the EAS contract's version string) */
    domainVersion: text("domain_version").notNull(),
    /** the signed original as the SDK's shareable package `{ sig, signer }`, JSON with big integers as strings */
    signed: text("signed").notNull(),
    /** when this service accepted it */
    publishedAt: timestamp("published_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** when its uid was timestamped on its chain (EAS `Timestamped`, the earliest); null while it was not */
    timestampedAt: timestamp("timestamped_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    primaryKey({ name: "offchain_records_pkey", columns: [t.chainId, t.uid] }),
    index("offchain_records_uid_idx").on(t.uid),
    // The lists' default order, as location_proofs_order_idx (INCLUDE (revoked) too, migration 0012).
    index("offchain_records_order_idx").on(t.eventTimestamp.desc().nullsLast(), t.uid, t.chainId),
    index("offchain_records_prover_idx").on(t.prover, t.publishedAt),
    index("offchain_records_published_idx").on(t.publishedAt),
    index("offchain_records_bounds_gist").using("gist", boundsBox(t)),
    check(
      "offchain_records_location_columns_check",
      sql`(${t.geometry} is null) = (${t.minLon} is null) and (${t.longitude} is null) = (${t.minLon} is null) and (${t.latitude} is null) = (${t.minLon} is null)`,
    ),
  ],
);

/**
 * The EAS contract's events about off-chain attestations, as the sync engine read them from each chain (lib/sync/,
 * lib/offchain/chain-events.ts): `RevokedOffchain(revoker, data, timestamp)` (kind `revoked`) and `Timestamped(data,
 * timestamp)` (kind `timestamped`). Kept whether or not a record of the uid is held, since a record may be published
 * after its revocation; a record's state is worked out from them (offchain_records). Keyed by the event's place on
 * its chain, with its block's number, so a reorg's rewind deletes those of orphaned blocks and the records' state
 * is worked out again.
 */
export const offchainChainEvents = pgTable(
  "offchain_chain_events",
  {
    chainId: integer("chain_id").notNull(),
    blockNumber: bigint("block_number", { mode: "number" }).notNull(),
    logIndex: integer("log_index").notNull(),
    kind: text("kind").notNull(),
    /** the off-chain attestation's uid (the event's `data`), lowercase */
    uid: text("uid").notNull(),
    /** who revoked it (lowercase); null for a timestamp */
    revoker: text("revoker"),
    /** the event's timestamp: when EAS recorded it */
    time: timestamp("time", { withTimezone: true, mode: "date" }).notNull(),
    blockHash: text("block_hash").notNull(),
  },
  (t) => [
    primaryKey({ name: "offchain_chain_events_pkey", columns: [t.chainId, t.blockNumber, t.logIndex] }),
    index("offchain_chain_events_uid_idx").on(t.chainId, t.uid),
    check("offchain_chain_events_kind_check", sql`${t.kind} in ('revoked', 'timestamped')`),
  ],
);

export type OffchainRecordRow = typeof offchainRecords.$inferSelect;
export type NewOffchainRecordRow = typeof offchainRecords.$inferInsert;

/**
 * The data's version, one counter per chain (0: what belongs to no chain), moved by triggers in the transaction of
 * every write that can change what a response shows (db/migrations/0005_data_versions.sql; lib/data-version/).
 */
export const dataVersions = pgTable("data_versions", {
  chainId: integer("chain_id").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull(),
  changedAt: timestamp("changed_at", { withTimezone: true, mode: "date" }).notNull(),
});
