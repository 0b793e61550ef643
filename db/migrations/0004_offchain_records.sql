-- Off-chain location records (lib/offchain/): signed EAS off-chain attestations, verified before they are stored.
-- A table of their own beside location_proofs, so the on-chain counts, indexes and sync bookkeeping are untouched
-- (docs/offchain.md, "Storage").
CREATE TABLE "offchain_records" (
	"chain_id" integer NOT NULL,
	"uid" text NOT NULL,
	"chain" text NOT NULL,
	"schema_uid" text NOT NULL,
	"prover" text NOT NULL,
	"subject" text NOT NULL,
	"attestation_time" timestamp with time zone NOT NULL,
	"expiration_time" timestamp with time zone,
	"revocable" boolean NOT NULL,
	"ref_uid" text,
	"revoked" boolean DEFAULT false NOT NULL,
	"revocation_time" timestamp with time zone,
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
	"protocol_version" text,
	"lp_version" text,
	"location_type_normalized" text,
	"application_fields" jsonb,
	"decode_warning" text,
	"decoder_version" smallint NOT NULL,
	"geometry" jsonb,
	"longitude" double precision,
	"latitude" double precision,
	"min_lon" double precision,
	"min_lat" double precision,
	"max_lon" double precision,
	"max_lat" double precision,
	"offchain_version" smallint NOT NULL,
	"domain_version" text NOT NULL,
	"signed" text NOT NULL,
	"published_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "offchain_records_pkey" PRIMARY KEY("chain_id","uid"),
	CONSTRAINT "offchain_records_location_columns_check" CHECK (("offchain_records"."geometry" is null) = ("offchain_records"."min_lon" is null) and ("offchain_records"."longitude" is null) = ("offchain_records"."min_lon" is null) and ("offchain_records"."latitude" is null) = ("offchain_records"."min_lon" is null))
);
--> statement-breakpoint
CREATE INDEX "offchain_records_uid_idx" ON "offchain_records" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "offchain_records_order_idx" ON "offchain_records" USING btree ("event_timestamp" DESC NULLS LAST,"uid","chain_id");--> statement-breakpoint
CREATE INDEX "offchain_records_prover_idx" ON "offchain_records" USING btree ("prover","published_at");--> statement-breakpoint
CREATE INDEX "offchain_records_published_idx" ON "offchain_records" USING btree ("published_at");--> statement-breakpoint
CREATE INDEX "offchain_records_bounds_gist" ON "offchain_records" USING gist (box(point("min_lon", "min_lat"), point(case when "min_lon" > "max_lon" then "max_lon" + 360 else "max_lon" end, "max_lat")));
