CREATE TABLE "sync_blocks" (
	"chain_id" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	CONSTRAINT "sync_blocks_pkey" PRIMARY KEY("chain_id","block_number")
);
--> statement-breakpoint
CREATE TABLE "sync_runs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sync_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"chain_id" integer NOT NULL,
	"chain" text NOT NULL,
	"kind" text NOT NULL,
	"trigger" text NOT NULL,
	"status" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"from_block" bigint,
	"to_block" bigint,
	"attestations" integer DEFAULT 0 NOT NULL,
	"revocations" integer DEFAULT 0 NOT NULL,
	"rewound" integer DEFAULT 0 NOT NULL,
	"rpc_requests" integer DEFAULT 0 NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "sync_state" (
	"chain_id" integer PRIMARY KEY NOT NULL,
	"chain" text NOT NULL,
	"cursor_block" bigint,
	"cursor_block_time" timestamp with time zone,
	"head_block" bigint,
	"head_checked_at" timestamp with time zone,
	"range_size" integer,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"paused" boolean DEFAULT false NOT NULL,
	"paused_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sync_runs_chain_idx" ON "sync_runs" USING btree ("chain_id","started_at" DESC NULLS LAST);