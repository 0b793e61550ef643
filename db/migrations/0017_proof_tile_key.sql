-- The tile key of a proof: its world pixel (proof_tile_wx, proof_tile_wy: migrations 0012 and 0015) as one integer
-- whose bits alternate between the pixel's y and x, highest first (a Morton, or Z-order, key). The tile of zoom z is
-- the key's leading 2z bits, so the proofs of any tile at any zoom are one range of keys, which the index below
-- finds with one range scan (lib/tiles/tile-sql.ts). Each pixel loses its lowest bit (31 bits a side, 62 in all: a
-- non-negative int8), which no tile of the zooms served (to 18) looks at. PL/pgSQL: the bit spreading reads each
-- intermediate value twice, which the planner would not inline over the pixels' expressions. A migration that
-- changes proof_tile_wx or proof_tile_wy must rebuild this index (REINDEX INDEX location_proofs_tile_key_idx).
-- SET search_path FROM CURRENT: ANALYZE, VACUUM and index builds evaluate an index expression under a search path of
-- pg_catalog alone (PostgreSQL 17, PGlite's), where proof_tile_wx would not be found.
CREATE OR REPLACE FUNCTION proof_tile_key(lon float8, lat float8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
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
CREATE INDEX IF NOT EXISTS "location_proofs_tile_key_idx" ON "location_proofs" USING btree (proof_tile_key("longitude", "latitude"));
