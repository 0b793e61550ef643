-- Keeps proof_schema_counts exact, as proof_counts is kept (migration 0003): statement-level triggers with transition
-- tables, one upsert per group in key order, inside the writing transaction.
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
CREATE FUNCTION proof_schema_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM proof_schema_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER proof_schema_counts_insert AFTER INSERT ON location_proofs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_schema_counts_after_insert();
--> statement-breakpoint
CREATE TRIGGER proof_schema_counts_delete AFTER DELETE ON location_proofs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_schema_counts_after_delete();
--> statement-breakpoint
CREATE TRIGGER proof_schema_counts_update AFTER UPDATE ON location_proofs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_schema_counts_after_update();
--> statement-breakpoint
CREATE TRIGGER proof_schema_counts_truncate AFTER TRUNCATE ON location_proofs
  FOR EACH STATEMENT EXECUTE FUNCTION proof_schema_counts_after_truncate();
--> statement-breakpoint
INSERT INTO proof_schema_counts (chain, schema_uid, protocol_version, revoked, has_point, n)
SELECT chain, schema_uid, coalesce(protocol_version, ''), revoked, longitude IS NOT NULL, count(*)
FROM location_proofs GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
-- A chain that has indexed blocks before schemas were discovered indexed the v0.1 schema, and only that, up to its
-- cursor: it stays in the chain's stream (never backfilled again). Other schemas are found by discovery.
INSERT INTO chain_schemas (chain_id, uid, schema, revocable, resolver, location, protocol_version, state)
SELECT chain_id, '0xba4171c92572b1e4f241d044c32cdf083be9fd946b8766977558ca6378c824e2',
  'uint256 eventTimestamp,string srs,string locationType,string location,string[] recipeType,bytes[] recipePayload,string[] mediaType,string[] mediaData,string memo',
  true, '0x0000000000000000000000000000000000000000', true, '0.1', 'live'
FROM sync_state WHERE cursor_block IS NOT NULL
ON CONFLICT DO NOTHING;
