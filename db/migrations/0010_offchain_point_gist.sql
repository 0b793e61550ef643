-- The representative point's GiST index on the off-chain records too (db/schema.ts, representativePoint), as
-- location_proofs_point_gist (0008) is on the proofs: a bbox on the OGC location-proofs collection with source=all
-- or offchain tests the point, and the records' branch of the union would otherwise read every record.
CREATE INDEX IF NOT EXISTS "offchain_records_point_gist" ON "offchain_records" USING gist (point("longitude", "latitude")) INCLUDE ("event_timestamp", "uid", "chain_id", "longitude", "latitude");
