CREATE TABLE "chain_schemas" (
	"chain_id" integer NOT NULL,
	"uid" text NOT NULL,
	"schema" text NOT NULL,
	"resolver" text,
	"revocable" boolean,
	"location" boolean NOT NULL,
	"protocol_version" text,
	"registered_block" bigint,
	"state" text NOT NULL,
	"backfill_from" bigint,
	"backfill_cursor" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chain_schemas_pkey" PRIMARY KEY("chain_id","uid"),
	CONSTRAINT "chain_schemas_state_check" CHECK ("chain_schemas"."state" in ('live', 'backfill', 'off'))
);
--> statement-breakpoint
CREATE TABLE "proof_schema_counts" (
	"chain" text NOT NULL,
	"schema_uid" text NOT NULL,
	"protocol_version" text NOT NULL,
	"revoked" boolean NOT NULL,
	"has_point" boolean NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "proof_schema_counts_pkey" PRIMARY KEY("chain","schema_uid","protocol_version","revoked","has_point")
);
--> statement-breakpoint
ALTER TABLE "location_proofs" ADD COLUMN "protocol_version" text DEFAULT '0.1';--> statement-breakpoint
ALTER TABLE "location_proofs" ADD COLUMN "lp_version" text;--> statement-breakpoint
ALTER TABLE "location_proofs" ADD COLUMN "location_type_normalized" text;--> statement-breakpoint
ALTER TABLE "location_proofs" ADD COLUMN "application_fields" jsonb;--> statement-breakpoint
ALTER TABLE "location_proofs" ADD COLUMN "decode_warning" text;--> statement-breakpoint
-- The rows already stored were written by the decoder before this one (1); rows written from now on by this one (2).
-- Both defaults are catalogue entries: no row is rewritten.
ALTER TABLE "location_proofs" ADD COLUMN "decoder_version" smallint DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "location_proofs" ALTER COLUMN "decoder_version" SET DEFAULT 2;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "schema_cursor_block" bigint;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "schema_range_size" integer;--> statement-breakpoint
CREATE INDEX "location_proofs_schema_idx" ON "location_proofs" USING btree ("schema_uid","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_protocol_version_idx" ON "location_proofs" USING btree ("protocol_version","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_location_type_normalized_idx" ON "location_proofs" USING btree ("location_type_normalized","event_timestamp" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "location_proofs_redecode_idx" ON "location_proofs" USING btree ("chain_id","uid") WHERE "location_proofs"."decoder_version" < 2;