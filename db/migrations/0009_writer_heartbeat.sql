ALTER TABLE "sync_runs" ADD COLUMN "owner" text;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD COLUMN "heartbeat_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "lease_heartbeat_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "lease_skips" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "skipped_since" timestamp with time zone;