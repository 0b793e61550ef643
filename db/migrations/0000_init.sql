CREATE TABLE "location_proofs" (
	"chain_id" integer NOT NULL,
	"uid" text NOT NULL,
	"chain" text NOT NULL,
	"schema_uid" text NOT NULL,
	"prover" text NOT NULL,
	"subject" text NOT NULL,
	"attestation_time" timestamp with time zone NOT NULL,
	"expiration_time" timestamp with time zone,
	"revocable" boolean DEFAULT true NOT NULL,
	"ref_uid" text,
	"revoked" boolean DEFAULT false NOT NULL,
	"revocation_time" timestamp with time zone,
	"revocation_block_number" bigint,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"data" text NOT NULL,
	"decode_error" text,
	"event_timestamp" timestamp with time zone,
	"event_timestamp_raw" numeric,
	"srs" text,
	"location_type" text,
	"location" text,
	"recipe_type" jsonb,
	"recipe_payload" jsonb,
	"media_type" jsonb,
	"media_data" jsonb,
	"memo" text,
	"geometry" jsonb,
	"longitude" double precision,
	"latitude" double precision,
	"min_lon" double precision,
	"min_lat" double precision,
	"max_lon" double precision,
	"max_lat" double precision,
	"indexed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "location_proofs_pkey" PRIMARY KEY("chain_id","uid")
);
--> statement-breakpoint
CREATE INDEX "location_proofs_uid_idx" ON "location_proofs" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "location_proofs_order_idx" ON "location_proofs" USING btree ("event_timestamp" DESC NULLS LAST,"uid","chain_id");--> statement-breakpoint
CREATE INDEX "location_proofs_chain_idx" ON "location_proofs" USING btree ("chain","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_prover_idx" ON "location_proofs" USING btree ("prover","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_subject_idx" ON "location_proofs" USING btree ("subject","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_block_idx" ON "location_proofs" USING btree ("chain_id","block_number");--> statement-breakpoint
CREATE INDEX "location_proofs_bbox_gist" ON "location_proofs" USING gist (box(point(min_lon, min_lat), point(max_lon, max_lat)));--> statement-breakpoint
CREATE INDEX "location_proofs_min_lon_idx" ON "location_proofs" USING btree ("min_lon");--> statement-breakpoint
CREATE INDEX "location_proofs_max_lon_idx" ON "location_proofs" USING btree ("max_lon");--> statement-breakpoint
CREATE INDEX "location_proofs_min_lat_idx" ON "location_proofs" USING btree ("min_lat");--> statement-breakpoint
CREATE INDEX "location_proofs_max_lat_idx" ON "location_proofs" USING btree ("max_lat");