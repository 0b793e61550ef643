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
const DEFAULT_SORT: SortSpec[] = [{ field: "event_timestamp", descending: true }];

/**
 * ORDER BY for a sort, always completed by the primary key (uid, chain_id) so the order is total and offset paging
 * never skips or repeats a row. Nulls sort last in either direction.
 */
export function orderBy(sort: SortSpec[] = DEFAULT_SORT, options: { avoidIndex?: boolean } = {}): SQL[] {
  const clauses = sort.map(({ field, descending }, i) => {
    // The first key as an expression no index provides: the planner must then filter first and sort the few
    // matches (see pageAndCount), instead of walking the order index hoping to meet them early.
    const key =
      options.avoidIndex && i === 0
        ? sql`coalesce(${SORTABLE[field]}, ${SORTABLE[field]})`
        : sql`${SORTABLE[field]}`;
    return descending ? sql`${key} desc nulls last` : sql`${key} asc nulls last`;
  });
  if (!sort.some((s) => s.field === "uid")) clauses.push(sql`${p.uid} asc`);
  clauses.push(sql`${p.chainId} asc`);
  return clauses;
}
