-- Coordinates within 1e-100 of zero as zero in the point and bounds columns (lib/location/columns.ts, SNAP, says
-- why: GiST's box arithmetic failed with an underflow on inserts of points at subnormal distances from zero).
UPDATE "location_proofs" SET
  "longitude" = case when abs("longitude") < 1e-100 then 0 else "longitude" end,
  "latitude" = case when abs("latitude") < 1e-100 then 0 else "latitude" end,
  "min_lon" = case when abs("min_lon") < 1e-100 then 0 else "min_lon" end,
  "min_lat" = case when abs("min_lat") < 1e-100 then 0 else "min_lat" end,
  "max_lon" = case when abs("max_lon") < 1e-100 then 0 else "max_lon" end,
  "max_lat" = case when abs("max_lat") < 1e-100 then 0 else "max_lat" end
WHERE "longitude" <> 0 and abs("longitude") < 1e-100 or "latitude" <> 0 and abs("latitude") < 1e-100
   or "min_lon" <> 0 and abs("min_lon") < 1e-100 or "min_lat" <> 0 and abs("min_lat") < 1e-100
   or "max_lon" <> 0 and abs("max_lon") < 1e-100 or "max_lat" <> 0 and abs("max_lat") < 1e-100;--> statement-breakpoint
UPDATE "offchain_records" SET
  "longitude" = case when abs("longitude") < 1e-100 then 0 else "longitude" end,
  "latitude" = case when abs("latitude") < 1e-100 then 0 else "latitude" end,
  "min_lon" = case when abs("min_lon") < 1e-100 then 0 else "min_lon" end,
  "min_lat" = case when abs("min_lat") < 1e-100 then 0 else "min_lat" end,
  "max_lon" = case when abs("max_lon") < 1e-100 then 0 else "max_lon" end,
  "max_lat" = case when abs("max_lat") < 1e-100 then 0 else "max_lat" end
WHERE "longitude" <> 0 and abs("longitude") < 1e-100 or "latitude" <> 0 and abs("latitude") < 1e-100
   or "min_lon" <> 0 and abs("min_lon") < 1e-100 or "min_lat" <> 0 and abs("min_lat") < 1e-100
   or "max_lon" <> 0 and abs("max_lon") < 1e-100 or "max_lat" <> 0 and abs("max_lat") < 1e-100;--> statement-breakpoint
-- The representative point's GiST index for a bbox on the OGC location-proofs collection (db/schema.ts,
-- representativePoint). It also holds the default order's keys and the coordinates, so the page of a small box finds
-- and sorts its matches from the index alone (an index-only scan) and reads the table for the page's rows only.
CREATE INDEX IF NOT EXISTS "location_proofs_point_gist" ON "location_proofs" USING gist (point("longitude", "latitude")) INCLUDE ("event_timestamp", "uid", "chain_id", "longitude", "latitude");
