-- The representative point's GiST index for a bbox on the OGC location-proofs collection (db/schema.ts,
-- representativePoint, which says why coordinates within 1e-100 of zero are zero here). It also holds the default
-- order's keys and the coordinates, so the page of a small box finds and sorts its matches from the index alone (an
-- index-only scan) and reads the table for the page's rows only.
CREATE INDEX IF NOT EXISTS "location_proofs_point_gist" ON "location_proofs" USING gist (point((case when abs("longitude") < 1e-100 then 0 else "longitude" end), (case when abs("latitude") < 1e-100 then 0 else "latitude" end))) INCLUDE ("event_timestamp", "uid", "chain_id", "longitude", "latitude");
