import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { proofCounts as c } from "../../db/schema.js";
import { coversWorld, type ProofFilter } from "./filter.js";

/**
 * The count of a filter that only uses the dimensions proof_counts is keyed by (chain, revoked, has coordinates, a
 * bbox covering the world), read from the trigger-maintained totals: exact, and a few rows to add instead of a
 * scan of every match. Undefined when the filter needs the rows themselves.
 */
export async function countFromTotals(db: Db, f: ProofFilter): Promise<number | undefined> {
  const where = totalsCondition(f);
  if (where === null) return undefined;
  const [row] = await queryRows<{ n: string | number | null }>(
    db,
    sql`select coalesce(sum(${c.n}), 0) as n from ${c} ${where ? sql`where ${where}` : sql``}`,
  );
  return Number(row?.n ?? 0);
}

/** The condition on proof_counts equivalent to the filter, or null when there is none. */
function totalsCondition(f: ProofFilter): SQL | undefined | null {
  const usesRows =
    f.uid !== undefined ||
    f.prover !== undefined ||
    f.subject !== undefined ||
    (f.times?.length ?? 0) > 0 ||
    f.hasEventTime !== undefined ||
    (f.where?.length ?? 0) > 0 ||
    (f.bbox !== undefined && !coversWorld(f.bbox));
  if (usesRows) return null;
  const parts: SQL[] = [];
  if (!f.includeRevoked) parts.push(eq(c.revoked, false));
  if (f.chains?.length) parts.push(inArray(c.chain, f.chains));
  if (f.hasCoordinates !== undefined) parts.push(eq(c.hasPoint, f.hasCoordinates));
  // A world bbox matches exactly the proofs that have bounds (see bboxCondition); under the OGC rule it matches
  // every proof.
  if (f.bbox && !f.bboxMatchesMissing) parts.push(eq(c.hasBounds, true));
  return parts.length ? and(...parts) : undefined;
}
