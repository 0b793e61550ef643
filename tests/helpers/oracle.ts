import type { NewLocationProofRow } from "../../db/schema.js";
import type { Bbox } from "../../lib/proofs/filter.js";

/**
 * A plain in-memory reading of the filter semantics, to check the SQL against: what a proof list should contain,
 * in which order. Deliberately written differently from the SQL builder (no shared code).
 */
export type OracleFilter = {
  bbox?: Bbox;
  chains?: string[];
  prover?: string;
  includeRevoked?: boolean;
  hasCoordinates?: boolean;
  start?: Date;
  end?: Date;
};

const overlaps = (r: NewLocationProofRow, b: Bbox): boolean => {
  if (r.minLon == null || r.minLat == null || r.maxLon == null || r.maxLat == null) return false;
  const latOk = r.maxLat >= b.minLat && r.minLat <= b.maxLat;
  const lonIn = (lo: number, hi: number) => r.maxLon! >= lo && r.minLon! <= hi;
  const lonOk =
    b.minLon <= b.maxLon ? lonIn(b.minLon, b.maxLon) : lonIn(b.minLon, 180) || lonIn(-180, b.maxLon);
  return latOk && lonOk;
};

export function oracle(rows: NewLocationProofRow[], f: OracleFilter): NewLocationProofRow[] {
  return rows
    .filter((r) => f.includeRevoked || !r.revoked)
    .filter((r) => !f.chains || f.chains.includes(r.chain))
    .filter((r) => !f.prover || r.prover === f.prover)
    .filter((r) => !f.hasCoordinates || r.longitude != null)
    .filter((r) => !f.bbox || overlaps(r, f.bbox))
    .filter((r) => !f.start || (r.eventTimestamp != null && r.eventTimestamp >= f.start))
    .filter((r) => !f.end || (r.eventTimestamp != null && r.eventTimestamp <= f.end))
    .sort(defaultOrder);
}

export function defaultOrder(a: NewLocationProofRow, b: NewLocationProofRow): number {
  const ta = a.eventTimestamp?.getTime() ?? Number.NEGATIVE_INFINITY;
  const tb = b.eventTimestamp?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (ta !== tb) return tb - ta;
  if (a.uid !== b.uid) return a.uid < b.uid ? -1 : 1;
  return a.chainId - b.chainId;
}
