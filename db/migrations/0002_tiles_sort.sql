-- sortby on chain, prover or subject: the whole order, (value, uid, chain id), once per direction (db/schema.ts).
CREATE INDEX "location_proofs_chain_sort_idx" ON "location_proofs" USING btree ("chain","uid","chain_id");--> statement-breakpoint
CREATE INDEX "location_proofs_chain_desc_sort_idx" ON "location_proofs" USING btree ("chain" DESC,"uid","chain_id");--> statement-breakpoint
CREATE INDEX "location_proofs_prover_sort_idx" ON "location_proofs" USING btree ("prover","uid","chain_id");--> statement-breakpoint
CREATE INDEX "location_proofs_prover_desc_sort_idx" ON "location_proofs" USING btree ("prover" DESC,"uid","chain_id");--> statement-breakpoint
CREATE INDEX "location_proofs_subject_sort_idx" ON "location_proofs" USING btree ("subject","uid","chain_id");--> statement-breakpoint
CREATE INDEX "location_proofs_subject_desc_sort_idx" ON "location_proofs" USING btree ("subject" DESC,"uid","chain_id");--> statement-breakpoint
CREATE INDEX "location_proofs_no_time_uid_idx" ON "location_proofs" USING btree ("uid","chain_id") WHERE "location_proofs"."event_timestamp" is null;--> statement-breakpoint
