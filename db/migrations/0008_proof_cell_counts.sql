CREATE TABLE "proof_cell_counts" (
	"chain" text NOT NULL,
	"revoked" boolean NOT NULL,
	"cell_lon" smallint NOT NULL,
	"cell_lat" smallint NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "proof_cell_counts_pkey" PRIMARY KEY("chain","revoked","cell_lon","cell_lat")
);
--> statement-breakpoint
CREATE INDEX "location_proofs_multi_cell_bounds_gist" ON "location_proofs" USING gist (box(point("min_lon", "min_lat"), point(case when "min_lon" > "max_lon" then "max_lon" + 360 else "max_lon" end, "max_lat"))) WHERE not ("location_proofs"."min_lon" <= "location_proofs"."max_lon" and floor("location_proofs"."min_lon") = floor("location_proofs"."max_lon") and floor("location_proofs"."min_lat") = floor("location_proofs"."max_lat"));--> statement-breakpoint
-- Kept exact as proof_counts is (0003): statement-level triggers with transition tables, one upsert per group in
-- key order, in the writing transaction. Only the proofs whose bounds lie within one 1° cell are counted (the
-- predicate of the partial index above, db/schema.ts singleCell); the cell is the floor of west and south.
CREATE FUNCTION proof_cell_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_cell_counts AS c (chain, revoked, cell_lon, cell_lat, n)
  SELECT chain, revoked, floor(min_lon)::smallint, floor(min_lat)::smallint, count(*)
  FROM new_rows
  WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, cell_lon, cell_lat) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_cell_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_cell_counts AS c (chain, revoked, cell_lon, cell_lat, n)
  SELECT chain, revoked, floor(min_lon)::smallint, floor(min_lat)::smallint, -count(*)
  FROM old_rows
  WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, cell_lon, cell_lat) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_cell_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proof_cell_counts AS c (chain, revoked, cell_lon, cell_lat, n)
  SELECT chain, revoked, cell_lon, cell_lat, sum(d)
  FROM (
    SELECT chain, revoked, floor(min_lon)::smallint AS cell_lon, floor(min_lat)::smallint AS cell_lat, 1 AS d
    FROM new_rows
    WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
    UNION ALL
    SELECT chain, revoked, floor(min_lon)::smallint, floor(min_lat)::smallint, -1
    FROM old_rows
    WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
  ) AS changes
  GROUP BY 1, 2, 3, 4 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (chain, revoked, cell_lon, cell_lat) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION proof_cell_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM proof_cell_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER proof_cell_counts_insert AFTER INSERT ON location_proofs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_cell_counts_after_insert();
--> statement-breakpoint
CREATE TRIGGER proof_cell_counts_delete AFTER DELETE ON location_proofs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_cell_counts_after_delete();
--> statement-breakpoint
CREATE TRIGGER proof_cell_counts_update AFTER UPDATE ON location_proofs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION proof_cell_counts_after_update();
--> statement-breakpoint
CREATE TRIGGER proof_cell_counts_truncate AFTER TRUNCATE ON location_proofs
  FOR EACH STATEMENT EXECUTE FUNCTION proof_cell_counts_after_truncate();
--> statement-breakpoint
INSERT INTO proof_cell_counts (chain, revoked, cell_lon, cell_lat, n)
SELECT chain, revoked, floor(min_lon)::smallint, floor(min_lat)::smallint, count(*)
FROM location_proofs
WHERE min_lon <= max_lon AND floor(min_lon) = floor(max_lon) AND floor(min_lat) = floor(max_lat)
GROUP BY 1, 2, 3, 4;
