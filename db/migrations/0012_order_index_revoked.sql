-- The lists' default order index holds `revoked` as well (INCLUDE: not a key, so the order and every plan that walks
-- the index are unchanged). The native list leaves revoked proofs out, so the keys of a deep offset (lib/proofs/rows.ts,
-- keysFirst) needed each row's `revoked` from the table: at a million proofs the planner read the whole table and
-- sorted it instead (a second for offset=500000), and at ten million the statement ran out of its budget. With the
-- flag in the index the walk is an index-only scan. The same for the off-chain records' order index.
DROP INDEX IF EXISTS "location_proofs_order_idx";--> statement-breakpoint
CREATE INDEX "location_proofs_order_idx" ON "location_proofs" USING btree ("event_timestamp" DESC NULLS LAST,"uid","chain_id") INCLUDE ("revoked");--> statement-breakpoint
DROP INDEX IF EXISTS "offchain_records_order_idx";--> statement-breakpoint
CREATE INDEX "offchain_records_order_idx" ON "offchain_records" USING btree ("event_timestamp" DESC NULLS LAST,"uid","chain_id") INCLUDE ("revoked");
