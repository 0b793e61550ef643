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
-- A proof's world pixel on the WebMercatorQuad grid of 2^32 x 2^32 (lib/tiles/web-mercator.ts), from its point:
-- x linear in longitude (180 on the last column), y Mercator's as atanh(sin(latitude)), exactly 0.5 at the equator,
-- latitudes clamped to the square map's limit. The tile queries call these same functions (lib/tiles/tile-sql.ts),
-- so the counts here and the tiles made from the rows always agree on the cell of a point. The planner inlines them.
CREATE FUNCTION proof_tile_wx(lon float8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT least(greatest(floor((lon + 180) / 360 * 4294967296), 0), 4294967295)::int8
$$;
--> statement-breakpoint
CREATE FUNCTION proof_tile_wy(lat float8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT least(greatest(floor((0.5 - atanh(sin(radians(greatest(-85.0511287798066, least(85.0511287798066, lat))))) / (2 * pi())) * 4294967296), 0), 4294967295)::int8
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
-- Kept exact as proof_counts is (0003): statement-level triggers with transition tables, one upsert per group in key
-- order, in the writing transaction, on the levels 3, 5, 7, 9, 11, 13 and 15 (lib/tiles/tile-pyramid.ts,
-- TILE_COUNT_LEVELS). A cell is the world pixel's leading `level` bits. Cells emptied by deletes stay, with n = 0.
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
CREATE FUNCTION proof_tile_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM proof_tile_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER proof_tile_counts_insert AFTER INSERT ON location_proofs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_tile_counts_after_insert();
--> statement-breakpoint
CREATE TRIGGER proof_tile_counts_delete AFTER DELETE ON location_proofs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_tile_counts_after_delete();
--> statement-breakpoint
CREATE TRIGGER proof_tile_counts_update AFTER UPDATE ON location_proofs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_tile_counts_after_update();
--> statement-breakpoint
CREATE TRIGGER proof_tile_counts_truncate AFTER TRUNCATE ON location_proofs
  FOR EACH STATEMENT EXECUTE FUNCTION proof_tile_counts_after_truncate();
--> statement-breakpoint
INSERT INTO proof_tile_counts (level, x, y, chain, n, sx, sy, u0, u1, u2, u3)
SELECT l.level, (p.wx >> (32 - l.level))::int AS x, (p.wy >> (32 - l.level))::int AS y, p.chain,
    count(*) AS n, sum(p.wx)::int8 AS sx, sum(p.wy)::int8 AS sy,
    bit_xor(p.u0) AS u0, bit_xor(p.u1) AS u1, bit_xor(p.u2) AS u2, bit_xor(p.u3) AS u3
  FROM (SELECT chain, proof_tile_wx(longitude) AS wx, proof_tile_wy(latitude) AS wy, (proof_tile_uid_parts(uid)).*
    FROM location_proofs WHERE longitude IS NOT NULL) AS p
  CROSS JOIN (VALUES (3), (5), (7), (9), (11), (13), (15)) AS l(level)
  GROUP BY 1, 2, 3, 4;
