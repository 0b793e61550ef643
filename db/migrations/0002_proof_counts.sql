CREATE TABLE "proof_counts" (
	"chain" text NOT NULL,
	"revoked" boolean NOT NULL,
	"has_bounds" boolean NOT NULL,
	"has_point" boolean NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "proof_counts_pkey" PRIMARY KEY("chain","revoked","has_bounds","has_point")
);
