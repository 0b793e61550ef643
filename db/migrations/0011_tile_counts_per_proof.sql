-- The tile count triggers (0000_baseline.sql) computed each proof's uid parts with proof_tile_uid_parts, a SQL
-- function returning a record: PostgreSQL inlines only scalar SQL functions, so `(proof_tile_uid_parts(uid)).*` ran
-- the function four times per proof and per level, as a function call each, and held most of a bulk insert's time.
-- The parts are now one inlined scalar function (proof_tile_uid_part), and each proof's pixels and uid parts are
-- computed once, below an OFFSET 0 that keeps the planner from repeating them for each of the seven levels. The
-- totals written are the same.
CREATE FUNCTION proof_tile_uid_part(uid text, k int) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ('x' || substr(uid, 3 + 16 * k, 16))::bit(64)::int8
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION proof_tile_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_tile_counts AS c (level, x, y, chain, n, sx, sy, u0, u1, u2, u3)
  SELECT l.level, (p.wx >> (32 - l.level))::int AS x, (p.wy >> (32 - l.level))::int AS y, p.chain,
    count(*) AS n, sum(p.wx)::int8 AS sx, sum(p.wy)::int8 AS sy,
    bit_xor(p.u0) AS u0, bit_xor(p.u1) AS u1, bit_xor(p.u2) AS u2, bit_xor(p.u3) AS u3
  FROM (SELECT chain, proof_tile_wx(longitude) AS wx, proof_tile_wy(latitude) AS wy,
      proof_tile_uid_part(uid, 0) AS u0, proof_tile_uid_part(uid, 1) AS u1, proof_tile_uid_part(uid, 2) AS u2,
      proof_tile_uid_part(uid, 3) AS u3
    FROM new_rows WHERE longitude IS NOT NULL OFFSET 0) AS p
  CROSS JOIN (VALUES (3), (5), (7), (9), (11), (13), (15)) AS l(level)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (level, x, y, chain) DO UPDATE SET n = c.n + excluded.n, sx = c.sx + excluded.sx, sy = c.sy + excluded.sy,
    u0 = c.u0 # excluded.u0, u1 = c.u1 # excluded.u1, u2 = c.u2 # excluded.u2, u3 = c.u3 # excluded.u3;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION proof_tile_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_tile_counts AS c (level, x, y, chain, n, sx, sy, u0, u1, u2, u3)
  SELECT l.level, (p.wx >> (32 - l.level))::int AS x, (p.wy >> (32 - l.level))::int AS y, p.chain,
    -count(*) AS n, -sum(p.wx)::int8 AS sx, -sum(p.wy)::int8 AS sy,
    bit_xor(p.u0) AS u0, bit_xor(p.u1) AS u1, bit_xor(p.u2) AS u2, bit_xor(p.u3) AS u3
  FROM (SELECT chain, proof_tile_wx(longitude) AS wx, proof_tile_wy(latitude) AS wy,
      proof_tile_uid_part(uid, 0) AS u0, proof_tile_uid_part(uid, 1) AS u1, proof_tile_uid_part(uid, 2) AS u2,
      proof_tile_uid_part(uid, 3) AS u3
    FROM old_rows WHERE longitude IS NOT NULL OFFSET 0) AS p
  CROSS JOIN (VALUES (3), (5), (7), (9), (11), (13), (15)) AS l(level)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (level, x, y, chain) DO UPDATE SET n = c.n + excluded.n, sx = c.sx + excluded.sx, sy = c.sy + excluded.sy,
    u0 = c.u0 # excluded.u0, u1 = c.u1 # excluded.u1, u2 = c.u2 # excluded.u2, u3 = c.u3 # excluded.u3;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION proof_tile_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_tile_counts AS c (level, x, y, chain, n, sx, sy, u0, u1, u2, u3)
  SELECT level, x, y, chain, sum(n), sum(sx), sum(sy), bit_xor(u0), bit_xor(u1), bit_xor(u2), bit_xor(u3)
  FROM (SELECT l.level, (p.wx >> (32 - l.level))::int AS x, (p.wy >> (32 - l.level))::int AS y, p.chain,
    p.sign * count(*) AS n, p.sign * sum(p.wx)::int8 AS sx, p.sign * sum(p.wy)::int8 AS sy,
    bit_xor(p.u0) AS u0, bit_xor(p.u1) AS u1, bit_xor(p.u2) AS u2, bit_xor(p.u3) AS u3
  FROM (SELECT sign, chain, proof_tile_wx(longitude) AS wx, proof_tile_wy(latitude) AS wy,
      proof_tile_uid_part(uid, 0) AS u0, proof_tile_uid_part(uid, 1) AS u1, proof_tile_uid_part(uid, 2) AS u2,
      proof_tile_uid_part(uid, 3) AS u3
    FROM (SELECT 1 AS sign, chain, longitude, latitude, uid FROM new_rows
      UNION ALL SELECT -1, chain, longitude, latitude, uid FROM old_rows) AS changed
    WHERE longitude IS NOT NULL OFFSET 0) AS p
  CROSS JOIN (VALUES (3), (5), (7), (9), (11), (13), (15)) AS l(level)
  GROUP BY 1, 2, 3, 4, p.sign) AS changes
  GROUP BY 1, 2, 3, 4
  HAVING sum(n) <> 0 OR sum(sx) <> 0 OR sum(sy) <> 0 OR bit_xor(u0) <> 0 OR bit_xor(u1) <> 0 OR bit_xor(u2) <> 0
    OR bit_xor(u3) <> 0
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (level, x, y, chain) DO UPDATE SET n = c.n + excluded.n, sx = c.sx + excluded.sx, sy = c.sy + excluded.sy,
    u0 = c.u0 # excluded.u0, u1 = c.u1 # excluded.u1, u2 = c.u2 # excluded.u2, u3 = c.u3 # excluded.u3;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP FUNCTION proof_tile_uid_parts(text);
