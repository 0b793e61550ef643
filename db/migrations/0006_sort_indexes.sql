CREATE INDEX "location_proofs_attestation_time_idx" ON "location_proofs" USING btree ("attestation_time");--> statement-breakpoint
CREATE INDEX "location_proofs_block_number_idx" ON "location_proofs" USING btree ("block_number");--> statement-breakpoint
CREATE INDEX "location_proofs_longitude_idx" ON "location_proofs" USING btree ("longitude");--> statement-breakpoint
CREATE INDEX "location_proofs_latitude_idx" ON "location_proofs" USING btree ("latitude");--> statement-breakpoint
CREATE INDEX "location_proofs_no_longitude_uid_idx" ON "location_proofs" USING btree ("uid","chain_id") WHERE "location_proofs"."longitude" is null;--> statement-breakpoint
CREATE INDEX "location_proofs_no_latitude_uid_idx" ON "location_proofs" USING btree ("uid","chain_id") WHERE "location_proofs"."latitude" is null;