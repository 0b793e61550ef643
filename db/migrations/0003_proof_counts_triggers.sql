-- Keeps proof_counts exact: statement-level triggers with transition tables aggregate each statement's rows once
-- (one upsert per group, not one per row), inside the writing transaction, so a count read from proof_counts is as
-- current as the rows themselves. Groups are upserted in key order so concurrent writers cannot deadlock.
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
CREATE FUNCTION proof_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM proof_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER proof_counts_insert AFTER INSERT ON location_proofs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_counts_after_insert();
--> statement-breakpoint
CREATE TRIGGER proof_counts_delete AFTER DELETE ON location_proofs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_counts_after_delete();
--> statement-breakpoint
CREATE TRIGGER proof_counts_update AFTER UPDATE ON location_proofs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_counts_after_update();
--> statement-breakpoint
CREATE TRIGGER proof_counts_truncate AFTER TRUNCATE ON location_proofs
  FOR EACH STATEMENT EXECUTE FUNCTION proof_counts_after_truncate();
--> statement-breakpoint
INSERT INTO proof_counts (chain, revoked, has_bounds, has_point, n)
SELECT chain, revoked, min_lon IS NOT NULL, longitude IS NOT NULL, count(*)
FROM location_proofs GROUP BY 1, 2, 3, 4;
