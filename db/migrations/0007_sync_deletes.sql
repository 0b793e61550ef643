-- Deletes done in batches across sync runs (lib/sync/deletes.ts): a reorg's rewind and an operator's removal
-- (scripts/remove-proofs.ts), each with what it matched when queued and what has gone since.
CREATE TABLE "sync_deletes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sync_deletes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"chain_id" integer NOT NULL,
	"kind" text NOT NULL,
	"above_block" bigint,
	"up_to_block" bigint,
	"schema_uid" text,
	"uids" text[],
	"rows_total" bigint DEFAULT 0 NOT NULL,
	"rows_deleted" bigint DEFAULT 0 NOT NULL,
	"requested_by" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "sync_deletes_kind_check" CHECK ("sync_deletes"."kind" in ('rewind', 'removal'))
);
--> statement-breakpoint
CREATE INDEX "sync_deletes_pending_idx" ON "sync_deletes" USING btree ("chain_id","id") WHERE "sync_deletes"."completed_at" is null;
