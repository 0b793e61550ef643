import type { ProofFilter } from "../proofs/filter.js";
import { type Source, sourceOf } from "../proofs/source.js";

// The mapping from the names a query uses to the filter model (lib/proofs/filter.ts), kept with the grammar so
// that lib/proofs knows the domain only.

/**
 * The filters on where a record comes from, as the native list, the OGC items and the stats take them from their
 * query (lib/params/grammar.ts `schema`, `protocolVersion`, `locationType`).
 */
export const sourceFilter = (q: {
  schema?: string[] | undefined;
  protocolVersion?: string[] | undefined;
  locationType?: string[] | undefined;
}): Pick<ProofFilter, "schemas" | "protocolVersions" | "locationTypes"> => ({
  ...(q.schema ? { schemas: q.schema } : {}),
  ...(q.protocolVersion ? { protocolVersions: q.protocolVersion } : {}),
  ...(q.locationType ? { locationTypes: q.locationType } : {}),
});

/**
 * The filters the native list and the OGC items take alike from their query, by the same names: the box, the
 * proximity circle (checked by the caller, which names its own order parameter), the chains, where a record comes
 * from (its schema and version: sourceFilter; on chain or off it: `source`), the prover and the subject. Each API adds its own rules (revoked proofs, missing geometry and time) around it.
 */
export const sharedFilter = (
  q: Parameters<typeof sourceFilter>[0] & {
    bbox?: ProofFilter["bbox"] | undefined;
    chain?: string[] | undefined;
    prover?: string | undefined;
    subject?: string | undefined;
    source?: Source | undefined;
  },
  near: ProofFilter["near"] | undefined,
): Pick<
  ProofFilter,
  | "bbox"
  | "near"
  | "chains"
  | "schemas"
  | "protocolVersions"
  | "locationTypes"
  | "prover"
  | "subject"
  | "source"
> => ({
  ...sourceOf(q.source),
  ...(q.bbox ? { bbox: q.bbox } : {}),
  ...(near ? { near } : {}),
  ...(q.chain ? { chains: q.chain } : {}),
  ...sourceFilter(q),
  ...(q.prover ? { prover: q.prover } : {}),
  ...(q.subject ? { subject: q.subject } : {}),
});
