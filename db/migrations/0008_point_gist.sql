-- Coordinates within 1e-100 of zero as zero in the point and bounds columns of both record tables
-- (lib/location/columns.ts, SNAP, says why: GiST's box arithmetic failed with an underflow on inserts of points at
-- subnormal distances from zero).
DO $$
DECLARE
  t text;
  c text;
BEGIN
  FOREACH t IN ARRAY array['location_proofs', 'offchain_records'] LOOP
    FOREACH c IN ARRAY array['longitude', 'latitude', 'min_lon', 'min_lat', 'max_lon', 'max_lat'] LOOP
      EXECUTE format('UPDATE %I SET %I = 0 WHERE %I <> 0 AND abs(%I) < 1e-100', t, c, c, c);
    END LOOP;
  END LOOP;
END $$;--> statement-breakpoint
-- The representative point's GiST index for a bbox on the OGC location-proofs collection (db/schema.ts,
-- representativePoint). It also holds the default order's keys and the coordinates, so the page of a small box finds
-- and sorts its matches from the index alone (an index-only scan) and reads the table for the page's rows only.
CREATE INDEX IF NOT EXISTS "location_proofs_point_gist" ON "location_proofs" USING gist (point("longitude", "latitude")) INCLUDE ("event_timestamp", "uid", "chain_id", "longitude", "latitude");
