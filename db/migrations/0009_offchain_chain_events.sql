-- Off-chain revocations and timestamps read from each chain (EAS RevokedOffchain, Timestamped; lib/offchain/chain-events.ts),
-- and the time an off-chain record's uid was timestamped.
CREATE TABLE "offchain_chain_events" (
	"chain_id" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"log_index" integer NOT NULL,
	"kind" text NOT NULL,
	"uid" text NOT NULL,
	"revoker" text,
	"time" timestamp with time zone NOT NULL,
	"block_hash" text NOT NULL,
	CONSTRAINT "offchain_chain_events_pkey" PRIMARY KEY("chain_id","block_number","log_index"),
	CONSTRAINT "offchain_chain_events_kind_check" CHECK ("offchain_chain_events"."kind" in ('revoked', 'timestamped'))
);
--> statement-breakpoint
ALTER TABLE "offchain_records" ADD COLUMN "timestamped_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "offchain_chain_events_uid_idx" ON "offchain_chain_events" USING btree ("chain_id","uid");
--> statement-breakpoint
-- The off-chain records' PostGIS shape, generated as location_proofs' is (migration 0006; not declared in db/schema.ts,
-- docs/development.md says why): the lists read both tables under one set of columns (lib/proofs/source.ts), and
-- CQL2's spatial functions read `shape`. Stored, not computed per read: proof_shape catches PostGIS errors in a
-- subtransaction, which a parallel query cannot start.
ALTER TABLE "offchain_records" ADD COLUMN "shape" geometry(Geometry, 4326) GENERATED ALWAYS AS (proof_shape("geometry", "min_lon", "max_lon")) STORED;--> statement-breakpoint
CREATE INDEX "offchain_records_shape_gist" ON "offchain_records" USING gist ("shape");
