-- Revocation reconciliation's own progress (lib/sync/revocations.ts): the last uid checked in the current pass
-- (null: the next call starts a pass), moved in the same transaction as the revocations it writes.
ALTER TABLE "sync_state" ADD COLUMN "reconcile_cursor" text;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "reconcile_checked" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "reconcile_pass_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "reconcile_completed_at" timestamp with time zone;
