-- The whole schema, as one migration. A database that already holds it (migrated by the releases whose migrations
-- this one replaces) has a last applied migration no older than this one's journal entry, so drizzle's migrator skips
-- it; a fresh database runs it. A database that stopped part way through those older migrations would run it on top
-- of its tables: this guard stops it with a message that says what to do instead.
DO $$
BEGIN
  IF to_regclass('public.location_proofs') IS NOT NULL THEN
    RAISE EXCEPTION 'this database was migrated by an older release that stopped before its migration '
      '0017_proof_tile_key: apply that release''s migrations first (npm run db:migrate at that release), then '
      'migrate again; or, for local data (the PGlite in DATA_DIR, a dev or test database), delete it and migrate again';
  END IF;
END $$;
--> statement-breakpoint
-- The proofs: one row per attestation of a location schema, keyed by chain and uid. The location columns are derived
-- from one decoded geometry and are null together (the check), so "no geometry" is one indexed condition.
CREATE TABLE "location_proofs" (
	"chain_id" integer NOT NULL,
	"uid" text NOT NULL,
	"chain" text NOT NULL,
	"schema_uid" text NOT NULL,
	"prover" text NOT NULL,
	"subject" text NOT NULL,
	"attestation_time" timestamp with time zone NOT NULL,
	"expiration_time" timestamp with time zone,
	"revocable" boolean DEFAULT true NOT NULL,
	"ref_uid" text,
	"revoked" boolean DEFAULT false NOT NULL,
	"revocation_time" timestamp with time zone,
	"revocation_block_number" bigint,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"data" text NOT NULL,
	"decode_error" text,
	"event_timestamp" timestamp with time zone,
	"event_timestamp_raw" numeric,
	"srs" text,
	"location_type" text,
	"location" text,
	"recipe_type" jsonb,
	"recipe_payload" jsonb,
	"media_type" jsonb,
	"media_data" jsonb,
	"memo" text,
	"geometry" jsonb,
	"longitude" double precision,
	"latitude" double precision,
	"min_lon" double precision,
	"min_lat" double precision,
	"max_lon" double precision,
	"max_lat" double precision,
	"indexed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"protocol_version" text DEFAULT '0.1',
	"lp_version" text,
	"location_type_normalized" text,
	"application_fields" jsonb,
	"decode_warning" text,
	"decoder_version" smallint DEFAULT 2 NOT NULL,
	CONSTRAINT "location_proofs_pkey" PRIMARY KEY("chain_id","uid"),
	CONSTRAINT "location_proofs_location_columns_check" CHECK (("location_proofs"."geometry" is null) = ("location_proofs"."min_lon" is null) and ("location_proofs"."longitude" is null) = ("location_proofs"."min_lon" is null) and ("location_proofs"."latitude" is null) = ("location_proofs"."min_lon" is null) and ("location_proofs"."min_lat" is null) = ("location_proofs"."min_lon" is null) and ("location_proofs"."max_lon" is null) = ("location_proofs"."min_lon" is null) and ("location_proofs"."max_lat" is null) = ("location_proofs"."min_lon" is null))
);
--> statement-breakpoint
-- Lookups and the list orders: by uid, by event time (newest first, uid and chain breaking ties), per chain, prover,
-- subject, schema, protocol version and location type; by block for a reorg's rewind; the rows an older decoder wrote.
CREATE INDEX "location_proofs_uid_idx" ON "location_proofs" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "location_proofs_order_idx" ON "location_proofs" USING btree ("event_timestamp" DESC NULLS LAST,"uid","chain_id");--> statement-breakpoint
CREATE INDEX "location_proofs_chain_idx" ON "location_proofs" USING btree ("chain","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_prover_idx" ON "location_proofs" USING btree ("prover","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_subject_idx" ON "location_proofs" USING btree ("subject","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_schema_idx" ON "location_proofs" USING btree ("schema_uid","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_protocol_version_idx" ON "location_proofs" USING btree ("protocol_version","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_location_type_normalized_idx" ON "location_proofs" USING btree ("location_type_normalized","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_block_idx" ON "location_proofs" USING btree ("chain_id","block_number");--> statement-breakpoint
CREATE INDEX "location_proofs_redecode_idx" ON "location_proofs" USING btree ("chain_id","uid") WHERE "location_proofs"."decoder_version" < 2;--> statement-breakpoint
-- Spatial filters: bounds as a box, the east edge of bounds that cross the antimeridian unwrapped past 180; the
-- crossing ones again apart; the ones not within one 1° cell (which the cell counts leave out); the proofs without
-- geometry by event time.
CREATE INDEX "location_proofs_bounds_gist" ON "location_proofs" USING gist (box(point("min_lon", "min_lat"), point(case when "min_lon" > "max_lon" then "max_lon" + 360 else "max_lon" end, "max_lat")));--> statement-breakpoint
CREATE INDEX "location_proofs_crossing_bounds_gist" ON "location_proofs" USING gist (box(point("min_lon", "min_lat"), point(case when "min_lon" > "max_lon" then "max_lon" + 360 else "max_lon" end, "max_lat"))) WHERE "location_proofs"."min_lon" > "location_proofs"."max_lon";--> statement-breakpoint
CREATE INDEX "location_proofs_spanning_bounds_gist" ON "location_proofs" USING gist ((box(point("min_lon", "min_lat"), point(case when "min_lon" > "max_lon" then "max_lon" + 360 else "max_lon" end, "max_lat")) + point(0, 0))) WHERE not ("location_proofs"."min_lon" <= "location_proofs"."max_lon" and floor("location_proofs"."min_lon") = floor("location_proofs"."max_lon") and floor("location_proofs"."min_lat") = floor("location_proofs"."max_lat"));--> statement-breakpoint
CREATE INDEX "location_proofs_no_geometry_time_idx" ON "location_proofs" USING btree ("event_timestamp") WHERE "location_proofs"."min_lon" is null;--> statement-breakpoint
-- sortby on each sortable property (keyset pages), the proofs without a point apart for the nulls part of a sort,
-- and min()/max() of the bounds for the collection extent.
CREATE INDEX "location_proofs_attestation_time_idx" ON "location_proofs" USING btree ("attestation_time");--> statement-breakpoint
CREATE INDEX "location_proofs_block_number_idx" ON "location_proofs" USING btree ("block_number");--> statement-breakpoint
CREATE INDEX "location_proofs_longitude_idx" ON "location_proofs" USING btree ("longitude");--> statement-breakpoint
CREATE INDEX "location_proofs_latitude_idx" ON "location_proofs" USING btree ("latitude");--> statement-breakpoint
CREATE INDEX "location_proofs_no_longitude_uid_idx" ON "location_proofs" USING btree ("uid","chain_id") WHERE "location_proofs"."longitude" is null;--> statement-breakpoint
CREATE INDEX "location_proofs_no_latitude_uid_idx" ON "location_proofs" USING btree ("uid","chain_id") WHERE "location_proofs"."latitude" is null;--> statement-breakpoint
CREATE INDEX "location_proofs_min_lon_idx" ON "location_proofs" USING btree ("min_lon");--> statement-breakpoint
CREATE INDEX "location_proofs_max_lon_idx" ON "location_proofs" USING btree ("max_lon");--> statement-breakpoint
CREATE INDEX "location_proofs_min_lat_idx" ON "location_proofs" USING btree ("min_lat");--> statement-breakpoint
CREATE INDEX "location_proofs_max_lat_idx" ON "location_proofs" USING btree ("max_lat");--> statement-breakpoint
-- The sync engine's state: the block hashes it has seen (to detect a reorg), its runs, each chain's cursor and lease.
CREATE TABLE "sync_blocks" (
	"chain_id" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	CONSTRAINT "sync_blocks_pkey" PRIMARY KEY("chain_id","block_number")
);
--> statement-breakpoint
CREATE TABLE "sync_runs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sync_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"chain_id" integer NOT NULL,
	"chain" text NOT NULL,
	"kind" text NOT NULL,
	"trigger" text NOT NULL,
	"status" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"from_block" bigint,
	"to_block" bigint,
	"attestations" integer DEFAULT 0 NOT NULL,
	"revocations" integer DEFAULT 0 NOT NULL,
	"rewound" integer DEFAULT 0 NOT NULL,
	"rpc_requests" integer DEFAULT 0 NOT NULL,
	"error" text,
	"owner" text,
	"reason" text,
	"heartbeat_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "sync_runs_chain_idx" ON "sync_runs" USING btree ("chain_id","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE TABLE "sync_state" (
	"chain_id" integer PRIMARY KEY NOT NULL,
	"chain" text NOT NULL,
	"cursor_block" bigint,
	"cursor_block_time" timestamp with time zone,
	"head_block" bigint,
	"head_checked_at" timestamp with time zone,
	"range_size" integer,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"paused" boolean DEFAULT false NOT NULL,
	"paused_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_heartbeat_at" timestamp with time zone,
	"lease_skips" integer DEFAULT 0 NOT NULL,
	"skipped_since" timestamp with time zone,
	"schema_cursor_block" bigint,
	"schema_range_size" integer
);
--> statement-breakpoint
-- The location schemas each chain's registry holds (schema discovery), and whether each is indexed live, backfilled
-- or left off.
CREATE TABLE "chain_schemas" (
	"chain_id" integer NOT NULL,
	"uid" text NOT NULL,
	"schema" text NOT NULL,
	"resolver" text,
	"revocable" boolean,
	"location" boolean NOT NULL,
	"protocol_version" text,
	"registered_block" bigint,
	"state" text NOT NULL,
	"backfill_from" bigint,
	"backfill_cursor" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_schemas_pkey" PRIMARY KEY("chain_id","uid"),
	CONSTRAINT "chain_schemas_state_check" CHECK ("chain_schemas"."state" in ('live', 'backfill', 'off'))
);
--> statement-breakpoint
-- The totals of location_proofs, kept exact by the triggers below (db/schema.ts says what each answers).
CREATE TABLE "proof_counts" (
	"chain" text NOT NULL,
	"revoked" boolean NOT NULL,
	"has_bounds" boolean NOT NULL,
	"has_point" boolean NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "proof_counts_pkey" PRIMARY KEY("chain","revoked","has_bounds","has_point")
);
--> statement-breakpoint
CREATE TABLE "proof_day_counts" (
	"chain" text NOT NULL,
	"revoked" boolean NOT NULL,
	"day" date,
	"n" bigint NOT NULL,
	CONSTRAINT "proof_day_counts_key" UNIQUE NULLS NOT DISTINCT("chain","revoked","day")
);
--> statement-breakpoint
CREATE TABLE "proof_cell_counts" (
	"chain" text NOT NULL,
	"revoked" boolean NOT NULL,
	"cell_lon" smallint NOT NULL,
	"cell_lat" smallint NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "proof_cell_counts_pkey" PRIMARY KEY("chain","revoked","cell_lon","cell_lat")
);
--> statement-breakpoint
CREATE INDEX "proof_cell_counts_cell_idx" ON "proof_cell_counts" USING btree ("cell_lon","cell_lat");--> statement-breakpoint
CREATE TABLE "proof_tile_counts" (
	"level" smallint NOT NULL,
	"x" integer NOT NULL,
	"y" integer NOT NULL,
	"chain" text NOT NULL,
	"n" bigint NOT NULL,
	"sx" bigint NOT NULL,
	"sy" bigint NOT NULL,
	"u0" bigint NOT NULL,
	"u1" bigint NOT NULL,
	"u2" bigint NOT NULL,
	"u3" bigint NOT NULL,
	CONSTRAINT "proof_tile_counts_pkey" PRIMARY KEY("level","x","y","chain")
);
--> statement-breakpoint
CREATE TABLE "proof_schema_counts" (
	"chain" text NOT NULL,
	"schema_uid" text NOT NULL,
	"protocol_version" text NOT NULL,
	"revoked" boolean NOT NULL,
	"has_point" boolean NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "proof_schema_counts_pkey" PRIMARY KEY("chain","schema_uid","protocol_version","revoked","has_point")
);
--> statement-breakpoint
-- A proof's world pixel on the WebMercatorQuad grid of 2^32 x 2^32 (lib/tiles/web-mercator.ts), from its point:
-- x linear in longitude (180 on the last column), y Mercator's as atanh(sin(latitude)), exactly 0.5 at the equator,
-- latitudes clamped to the square map's limit. The tile queries call these same functions (lib/tiles/tile-sql.ts),
-- so the counts here and the tiles made from the rows always agree on the cell of a point. The planner inlines them.
CREATE FUNCTION proof_tile_wx(lon float8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT least(greatest(floor((lon + 180) / 360 * 4294967296), 0), 4294967295)::int8
$$;
--> statement-breakpoint
-- A latitude so close to 0 that radians() would underflow to zero (PostgreSQL refuses a product that underflows:
-- "value out of range: underflow", which would fail the insert of such a proof) is taken as 0. Nothing changes for
-- any other point: below 1e-300 degrees, 0.5 - atanh(sin(φ)) / 2π is 0.5 exactly in double precision, as it is at 0.
CREATE FUNCTION proof_tile_wy(lat float8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT least(greatest(floor((0.5 - atanh(sin(radians(greatest(-85.0511287798066, least(85.0511287798066,
    CASE WHEN abs(lat) < 1e-300 THEN 0 ELSE lat END))))) / (2 * pi())) * 4294967296), 0), 4294967295)::int8
$$;
--> statement-breakpoint
-- A uid (0x and 64 hex digits) as four 64-bit integers. A cell keeps the XOR of its proofs' uids: a proof added or
-- taken away XORs its uid in again (XOR is its own inverse), so the XOR of a cell of one proof is that proof's uid
-- (lib/tiles/tile-pyramid.ts reads it back for a cluster of one).
CREATE FUNCTION proof_tile_uid_parts(uid text, OUT u0 int8, OUT u1 int8, OUT u2 int8, OUT u3 int8)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ('x' || substr(uid, 3, 16))::bit(64)::int8, ('x' || substr(uid, 19, 16))::bit(64)::int8,
    ('x' || substr(uid, 35, 16))::bit(64)::int8, ('x' || substr(uid, 51, 16))::bit(64)::int8
$$;
--> statement-breakpoint
-- The tile key of a proof: its world pixel (proof_tile_wx, proof_tile_wy) as one integer whose bits alternate between
-- the pixel's y and x, highest first (a Morton, or Z-order, key). The tile of zoom z is the key's leading 2z bits, so
-- the proofs of any tile at any zoom are one range of keys, which the index below finds with one range scan
-- (lib/tiles/tile-sql.ts). Each pixel loses its lowest bit (31 bits a side, 62 in all: a non-negative int8), which no
-- tile of the zooms served (to 18) looks at. PL/pgSQL: the bit spreading reads each intermediate value twice, which
-- the planner would not inline over the pixels' expressions. A migration that changes proof_tile_wx or proof_tile_wy
-- must rebuild this index (REINDEX INDEX location_proofs_tile_key_idx).
-- SET search_path FROM CURRENT: ANALYZE, VACUUM and index builds evaluate an index expression under a search path of
-- pg_catalog alone (PostgreSQL 17, PGlite's), where proof_tile_wx would not be found.
CREATE FUNCTION proof_tile_key(lon float8, lat float8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT AS $$
DECLARE
  x int8 := proof_tile_wx(lon) >> 1;
  y int8 := proof_tile_wy(lat) >> 1;
BEGIN
  -- Spread the 31 bits of each onto the even bits of an int8: masks 0x0000FFFF0000FFFF, 0x00FF00FF00FF00FF,
  -- 0x0F0F0F0F0F0F0F0F, 0x3333333333333333, 0x5555555555555555.
  x := (x | (x << 16)) & 281470681808895;
  x := (x | (x << 8)) & 71777214294589695;
  x := (x | (x << 4)) & 1085102592571150095;
  x := (x | (x << 2)) & 3689348814741910323;
  x := (x | (x << 1)) & 6148914691236517205;
  y := (y | (y << 16)) & 281470681808895;
  y := (y | (y << 8)) & 71777214294589695;
  y := (y | (y << 4)) & 1085102592571150095;
  y := (y | (y << 2)) & 3689348814741910323;
  y := (y | (y << 1)) & 6148914691236517205;
  RETURN (y << 1) | x;
END $$;
--> statement-breakpoint
CREATE INDEX "location_proofs_tile_key_idx" ON "location_proofs" USING btree (proof_tile_key("longitude", "latitude"));--> statement-breakpoint
-- The great-circle distance in metres between two points given in degrees (longitude, latitude), on the sphere of
-- the WGS84 mean radius R1 = (2a + b) / 3, the sphere PostGIS measures geography on when asked for a sphere. The
-- atan2 form (Vincenty's formula for the sphere) is accurate in double precision at every distance, from
-- millimetres to antipodal points, where the haversine's asin loses digits. A one-expression SQL function: the
-- planner inlines it into the query, so proximity (lib/proofs/near.ts) costs no function call per row.
CREATE FUNCTION great_circle_m(lon1 float8, lat1 float8, lon2 float8, lat2 float8)
RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 6371008.771415059 * atan2(
    sqrt(power(cos(radians(lat2)) * sin(radians(lon2 - lon1)), 2)
      + power(cos(radians(lat1)) * sin(radians(lat2))
        - sin(radians(lat1)) * cos(radians(lat2)) * cos(radians(lon2 - lon1)), 2)),
    sin(radians(lat1)) * sin(radians(lat2)) + cos(radians(lat1)) * cos(radians(lat2)) * cos(radians(lon2 - lon1)))
$$;
--> statement-breakpoint
-- The totals are kept exact by statement-level triggers with transition tables: each statement's rows are aggregated
-- once (one upsert per group, not one per row), inside the writing transaction, so a total is as current as the rows
-- themselves. Groups are upserted in key order so concurrent writers cannot deadlock. An update adds its new rows
-- and takes away its old ones, and writes only the groups whose totals change. Each table's three functions below
-- differ only in its grouping; the truncate function and the four triggers, the same for every table, follow.
-- proof_counts: per chain, revoked or not, with bounds or not, with a point or not.
CREATE FUNCTION proof_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_counts AS c (chain, revoked, has_bounds, has_point, n)
  SELECT chain, revoked, min_lon IS NOT NULL, longitude IS NOT NULL, count(*)
  FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, has_bounds, has_point) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_counts AS c (chain, revoked, has_bounds, has_point, n)
  SELECT chain, revoked, min_lon IS NOT NULL, longitude IS NOT NULL, -count(*)
  FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, has_bounds, has_point) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_counts AS c (chain, revoked, has_bounds, has_point, n)
  SELECT chain, revoked, has_bounds, has_point, sum(d)
  FROM (
    SELECT chain, revoked, min_lon IS NOT NULL AS has_bounds, longitude IS NOT NULL AS has_point, 1 AS d FROM new_rows
    UNION ALL
    SELECT chain, revoked, min_lon IS NOT NULL, longitude IS NOT NULL, -1 FROM old_rows
  ) AS changes
  GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, has_bounds, has_point) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- proof_day_counts: the day is event_timestamp's UTC date (null without an event time).
CREATE FUNCTION proof_day_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_day_counts AS c (chain, revoked, day, n)
  SELECT chain, revoked, (event_timestamp AT TIME ZONE 'UTC')::date, count(*)
  FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (chain, revoked, day) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_day_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_day_counts AS c (chain, revoked, day, n)
  SELECT chain, revoked, (event_timestamp AT TIME ZONE 'UTC')::date, -count(*)
  FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (chain, revoked, day) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_day_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_day_counts AS c (chain, revoked, day, n)
  SELECT chain, revoked, day, sum(d)
  FROM (
    SELECT chain, revoked, (event_timestamp AT TIME ZONE 'UTC')::date AS day, 1 AS d FROM new_rows
    UNION ALL
    SELECT chain, revoked, (event_timestamp AT TIME ZONE 'UTC')::date, -1 FROM old_rows
  ) AS changes
  GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (chain, revoked, day) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- proof_cell_counts: only the proofs whose bounds lie within one 1° cell are counted (the complement of the
-- predicate of location_proofs_spanning_bounds_gist, db/schema.ts singleCell); the cell is the floor of west and south.
CREATE FUNCTION proof_cell_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_cell_counts AS c (chain, revoked, cell_lon, cell_lat, n)
  SELECT chain, revoked, floor(min_lon)::smallint, floor(min_lat)::smallint, count(*)
  FROM new_rows
  WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, cell_lon, cell_lat) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_cell_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_cell_counts AS c (chain, revoked, cell_lon, cell_lat, n)
  SELECT chain, revoked, floor(min_lon)::smallint, floor(min_lat)::smallint, -count(*)
  FROM old_rows
  WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, cell_lon, cell_lat) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_cell_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_cell_counts AS c (chain, revoked, cell_lon, cell_lat, n)
  SELECT chain, revoked, cell_lon, cell_lat, sum(d)
  FROM (
    SELECT chain, revoked, floor(min_lon)::smallint AS cell_lon, floor(min_lat)::smallint AS cell_lat, 1 AS d
    FROM new_rows
    WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
    UNION ALL
    SELECT chain, revoked, floor(min_lon)::smallint, floor(min_lat)::smallint, -1
    FROM old_rows
    WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
  ) AS changes
  GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, cell_lon, cell_lat) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- proof_tile_counts: on the levels 3, 5, 7, 9, 11, 13 and 15 (lib/tiles/tile-pyramid.ts, TILE_COUNT_LEVELS), a cell
-- is the world pixel's leading `level` bits. Cells emptied by deletes stay, with n = 0.
CREATE FUNCTION proof_tile_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_tile_counts AS c (level, x, y, chain, n, sx, sy, u0, u1, u2, u3)
  SELECT l.level, (p.wx >> (32 - l.level))::int AS x, (p.wy >> (32 - l.level))::int AS y, p.chain,
    count(*) AS n, sum(p.wx)::int8 AS sx, sum(p.wy)::int8 AS sy,
    bit_xor(p.u0) AS u0, bit_xor(p.u1) AS u1, bit_xor(p.u2) AS u2, bit_xor(p.u3) AS u3
  FROM (SELECT chain, proof_tile_wx(longitude) AS wx, proof_tile_wy(latitude) AS wy, (proof_tile_uid_parts(uid)).*
    FROM new_rows WHERE longitude IS NOT NULL) AS p
  CROSS JOIN (VALUES (3), (5), (7), (9), (11), (13), (15)) AS l(level)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (level, x, y, chain) DO UPDATE SET n = c.n + excluded.n, sx = c.sx + excluded.sx, sy = c.sy + excluded.sy,
    u0 = c.u0 # excluded.u0, u1 = c.u1 # excluded.u1, u2 = c.u2 # excluded.u2, u3 = c.u3 # excluded.u3;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_tile_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_tile_counts AS c (level, x, y, chain, n, sx, sy, u0, u1, u2, u3)
  SELECT l.level, (p.wx >> (32 - l.level))::int AS x, (p.wy >> (32 - l.level))::int AS y, p.chain,
    -count(*) AS n, -sum(p.wx)::int8 AS sx, -sum(p.wy)::int8 AS sy,
    bit_xor(p.u0) AS u0, bit_xor(p.u1) AS u1, bit_xor(p.u2) AS u2, bit_xor(p.u3) AS u3
  FROM (SELECT chain, proof_tile_wx(longitude) AS wx, proof_tile_wy(latitude) AS wy, (proof_tile_uid_parts(uid)).*
    FROM old_rows WHERE longitude IS NOT NULL) AS p
  CROSS JOIN (VALUES (3), (5), (7), (9), (11), (13), (15)) AS l(level)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (level, x, y, chain) DO UPDATE SET n = c.n + excluded.n, sx = c.sx + excluded.sx, sy = c.sy + excluded.sy,
    u0 = c.u0 # excluded.u0, u1 = c.u1 # excluded.u1, u2 = c.u2 # excluded.u2, u3 = c.u3 # excluded.u3;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- An update that moves no proof (a revocation) nets out to nothing and writes nothing.
CREATE FUNCTION proof_tile_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_tile_counts AS c (level, x, y, chain, n, sx, sy, u0, u1, u2, u3)
  SELECT level, x, y, chain, sum(n), sum(sx), sum(sy), bit_xor(u0), bit_xor(u1), bit_xor(u2), bit_xor(u3)
  FROM (SELECT l.level, (p.wx >> (32 - l.level))::int AS x, (p.wy >> (32 - l.level))::int AS y, p.chain,
    count(*) AS n, sum(p.wx)::int8 AS sx, sum(p.wy)::int8 AS sy,
    bit_xor(p.u0) AS u0, bit_xor(p.u1) AS u1, bit_xor(p.u2) AS u2, bit_xor(p.u3) AS u3
  FROM (SELECT chain, proof_tile_wx(longitude) AS wx, proof_tile_wy(latitude) AS wy, (proof_tile_uid_parts(uid)).*
    FROM new_rows WHERE longitude IS NOT NULL) AS p
  CROSS JOIN (VALUES (3), (5), (7), (9), (11), (13), (15)) AS l(level)
  GROUP BY 1, 2, 3, 4
    UNION ALL
    SELECT l.level, (p.wx >> (32 - l.level))::int AS x, (p.wy >> (32 - l.level))::int AS y, p.chain,
    -count(*) AS n, -sum(p.wx)::int8 AS sx, -sum(p.wy)::int8 AS sy,
    bit_xor(p.u0) AS u0, bit_xor(p.u1) AS u1, bit_xor(p.u2) AS u2, bit_xor(p.u3) AS u3
  FROM (SELECT chain, proof_tile_wx(longitude) AS wx, proof_tile_wy(latitude) AS wy, (proof_tile_uid_parts(uid)).*
    FROM old_rows WHERE longitude IS NOT NULL) AS p
  CROSS JOIN (VALUES (3), (5), (7), (9), (11), (13), (15)) AS l(level)
  GROUP BY 1, 2, 3, 4) AS changes
  GROUP BY 1, 2, 3, 4
  HAVING sum(n) <> 0 OR sum(sx) <> 0 OR sum(sy) <> 0 OR bit_xor(u0) <> 0 OR bit_xor(u1) <> 0 OR bit_xor(u2) <> 0
    OR bit_xor(u3) <> 0
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (level, x, y, chain) DO UPDATE SET n = c.n + excluded.n, sx = c.sx + excluded.sx, sy = c.sy + excluded.sy,
    u0 = c.u0 # excluded.u0, u1 = c.u1 # excluded.u1, u2 = c.u2 # excluded.u2, u3 = c.u3 # excluded.u3;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- proof_schema_counts: per chain, schema, protocol version ('' for none), revoked or not, with a point or not.
CREATE FUNCTION proof_schema_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_schema_counts AS c (chain, schema_uid, protocol_version, revoked, has_point, n)
  SELECT chain, schema_uid, coalesce(protocol_version, ''), revoked, longitude IS NOT NULL, count(*)
  FROM new_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (chain, schema_uid, protocol_version, revoked, has_point) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_schema_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_schema_counts AS c (chain, schema_uid, protocol_version, revoked, has_point, n)
  SELECT chain, schema_uid, coalesce(protocol_version, ''), revoked, longitude IS NOT NULL, -count(*)
  FROM old_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (chain, schema_uid, protocol_version, revoked, has_point) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_schema_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_schema_counts AS c (chain, schema_uid, protocol_version, revoked, has_point, n)
  SELECT chain, schema_uid, protocol_version, revoked, has_point, sum(d)
  FROM (
    SELECT chain, schema_uid, coalesce(protocol_version, '') AS protocol_version, revoked, longitude IS NOT NULL AS has_point, 1 AS d FROM new_rows
    UNION ALL
    SELECT chain, schema_uid, coalesce(protocol_version, ''), revoked, longitude IS NOT NULL, -1 FROM old_rows
  ) AS changes
  GROUP BY 1, 2, 3, 4, 5 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (chain, schema_uid, protocol_version, revoked, has_point) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Per totals table T: T_after_truncate empties it, and the triggers T_insert, T_delete, T_update and T_truncate on
-- location_proofs call T_after_insert, T_after_delete, T_after_update and T_after_truncate, the insert and update
-- seeing the statement's new rows as new_rows, the delete and update its old rows as old_rows.
DO $do$
DECLARE
  totals text;
  ev record;
BEGIN
  FOREACH totals IN ARRAY ARRAY['proof_counts', 'proof_day_counts', 'proof_cell_counts', 'proof_tile_counts',
    'proof_schema_counts']
  LOOP
    EXECUTE format($fn$CREATE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM %I;
  RETURN NULL;
END $$$fn$, totals || '_after_truncate', totals);
    FOR ev IN SELECT * FROM (VALUES
      ('insert', 'INSERT', 'REFERENCING NEW TABLE AS new_rows'),
      ('delete', 'DELETE', 'REFERENCING OLD TABLE AS old_rows'),
      ('update', 'UPDATE', 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows'),
      ('truncate', 'TRUNCATE', '')) AS e(suffix, event, referencing)
    LOOP
      EXECUTE format('CREATE TRIGGER %I AFTER %s ON location_proofs %s FOR EACH STATEMENT EXECUTE FUNCTION %I()',
        totals || '_' || ev.suffix, ev.event, ev.referencing, totals || '_after_' || ev.suffix);
    END LOOP;
  END LOOP;
END $do$;
