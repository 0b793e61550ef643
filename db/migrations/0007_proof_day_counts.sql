CREATE TABLE "proof_day_counts" (
	"chain" text NOT NULL,
	"revoked" boolean NOT NULL,
	"day" date,
	"n" bigint NOT NULL,
	CONSTRAINT "proof_day_counts_key" UNIQUE NULLS NOT DISTINCT("chain","revoked","day")
);
--> statement-breakpoint
-- Kept exact as proof_counts is (0003): statement-level triggers with transition tables, one upsert per group in
-- key order, in the writing transaction. The day is event_timestamp's UTC date (null without an event time).
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
CREATE FUNCTION proof_day_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM proof_day_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER proof_day_counts_insert AFTER INSERT ON location_proofs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_day_counts_after_insert();
--> statement-breakpoint
CREATE TRIGGER proof_day_counts_delete AFTER DELETE ON location_proofs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_day_counts_after_delete();
--> statement-breakpoint
CREATE TRIGGER proof_day_counts_update AFTER UPDATE ON location_proofs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_day_counts_after_update();
--> statement-breakpoint
CREATE TRIGGER proof_day_counts_truncate AFTER TRUNCATE ON location_proofs
  FOR EACH STATEMENT EXECUTE FUNCTION proof_day_counts_after_truncate();
--> statement-breakpoint
INSERT INTO proof_day_counts (chain, revoked, day, n)
SELECT chain, revoked, (event_timestamp AT TIME ZONE 'UTC')::date, count(*)
FROM location_proofs GROUP BY 1, 2, 3;
