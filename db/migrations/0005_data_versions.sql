-- The data's version (lib/data-version/): one counter per chain (chain_id 0: what belongs to no chain, e.g. an
-- off-chain publication), moved in the transaction of every write that can change what a response shows. ETag and
-- Last-Modified derive from it, and a conditional request that has not changed is answered from it alone.
-- A chain's counter moves to max(its value + 1, the clock in milliseconds): it only grows, and it does not come back
-- to an old value after the database is recreated. The version of everything is the sum of the counters: it grows
-- with every commit that moves one, whatever the order in which concurrent writers commit (a max would not), and it
-- needs no row every writer must lock.
CREATE TABLE "data_versions" (
	"chain_id" integer PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL,
	"changed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
INSERT INTO "data_versions" ("chain_id", "version", "changed_at")
VALUES (0, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, clock_timestamp());
--> statement-breakpoint
-- The one function every writer calls (the triggers below; lib/data-version/bumpDataVersion for other writers).
CREATE FUNCTION bump_data_version(chains integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO data_versions AS d (chain_id, version, changed_at)
  SELECT DISTINCT c, (extract(epoch FROM clock_timestamp()) * 1000)::bigint, clock_timestamp()
    FROM unnest(chains) AS c
  ON CONFLICT (chain_id) DO UPDATE
    SET version = greatest(d.version + 1, excluded.version), changed_at = excluded.changed_at;
END $$;
--> statement-breakpoint
-- Every statement that writes proof rows (the sync's batches, revocations, reorg rewinds, re-decoding, deletions, the
-- loader) moves the versions of the chains whose rows it wrote: statement triggers, once per statement, not per row.
CREATE FUNCTION data_version_after_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  chains integer[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT chain_id) INTO chains FROM old_rows;
  ELSIF TG_OP = 'TRUNCATE' THEN
    SELECT array_agg(chain_id) INTO chains FROM data_versions;
  ELSE
    SELECT array_agg(DISTINCT chain_id) INTO chains FROM new_rows;
  END IF;
  IF chains IS NOT NULL THEN PERFORM bump_data_version(chains); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER data_version_insert AFTER INSERT ON location_proofs REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_rows();
--> statement-breakpoint
CREATE TRIGGER data_version_update AFTER UPDATE ON location_proofs REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_rows();
--> statement-breakpoint
CREATE TRIGGER data_version_delete AFTER DELETE ON location_proofs REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_rows();
--> statement-breakpoint
CREATE TRIGGER data_version_truncate AFTER TRUNCATE ON location_proofs
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_rows();
--> statement-breakpoint
-- A schema decision (a schema found, dropped by a reorg, or its state changed: live, backfill, off) changes what the
-- schema lists and the counts show; a backfill cursor moving alone does not.
CREATE FUNCTION data_version_after_schemas() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  chains integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT chain_id) INTO chains FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT chain_id) INTO chains FROM old_rows;
  ELSE
    SELECT array_agg(DISTINCT n.chain_id) INTO chains
      FROM new_rows n JOIN old_rows o ON o.chain_id = n.chain_id AND o.uid = n.uid
     WHERE n.state IS DISTINCT FROM o.state OR n.location IS DISTINCT FROM o.location
        OR n.protocol_version IS DISTINCT FROM o.protocol_version;
  END IF;
  IF chains IS NOT NULL THEN PERFORM bump_data_version(chains); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER data_version_schemas_insert AFTER INSERT ON chain_schemas REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_schemas();
--> statement-breakpoint
CREATE TRIGGER data_version_schemas_update AFTER UPDATE ON chain_schemas REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_schemas();
--> statement-breakpoint
CREATE TRIGGER data_version_schemas_delete AFTER DELETE ON chain_schemas REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_schemas();
--> statement-breakpoint
-- An off-chain publication (lib/offchain/), and an operator's removal of one, move the version of the chain its
-- signature names, as a write of proof rows does.
CREATE TRIGGER data_version_offchain_insert AFTER INSERT ON offchain_records REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_rows();
--> statement-breakpoint
CREATE TRIGGER data_version_offchain_update AFTER UPDATE ON offchain_records REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_rows();
--> statement-breakpoint
CREATE TRIGGER data_version_offchain_delete AFTER DELETE ON offchain_records REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION data_version_after_rows();
