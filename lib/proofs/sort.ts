import { type SQL, sql } from "drizzle-orm";
import { locationProofs as p } from "../../db/schema.js";

/** Properties a client may sort by, and the column each one is. */
export const SORTABLE = {
  event_timestamp: p.eventTimestamp,
  attestation_time: p.attestationTime,
  block_number: p.blockNumber,
  chain: p.chain,
  prover: p.prover,
  subject: p.subject,
  uid: p.uid,
  longitude: p.longitude,
  latitude: p.latitude,
} as const;

export type SortField = keyof typeof SORTABLE;
export type SortSpec = { field: SortField; descending: boolean };

/** Newest first: the default order of every list. */
export const DEFAULT_SORT: SortSpec[] = [{ field: "event_timestamp", descending: true }];

/**
 * ORDER BY for a sort, always completed by the primary key (uid, chain_id) so the order is total and offset paging
 * never skips or repeats a row. Nulls sort last in either direction.
 */
export function orderBy(sort: SortSpec[] = DEFAULT_SORT): SQL[] {
  const clauses = sort.map(({ field, descending }) =>
    descending ? sql`${SORTABLE[field]} desc nulls last` : sql`${SORTABLE[field]} asc nulls last`,
  );
  if (!sort.some((s) => s.field === "uid")) clauses.push(sql`${p.uid} asc`);
  clauses.push(sql`${p.chainId} asc`);
  return clauses;
}
