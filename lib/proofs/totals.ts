import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { proofCounts as c, proofDayCounts as dc } from "../../db/schema.js";
import { countFromCells } from "./cell-totals.js";
import { coversWorld, type ProofFilter, type TimeInterval, testsOnly } from "./filter.js";
import { DAY_MS, sqlDate } from "./timestamps.js";

/**
 * The count of a filter answered from the trigger-maintained totals (db/schema.ts): exact, and a few rows to add
 * instead of a visit of every match. proof_counts answers the filters on chain, revoked, has coordinates and a
 * bbox covering the world; proof_day_counts those on chain, revoked and one time window (or no event time);
 * proof_cell_counts those on chain, revoked and a bbox of at least 2° × 2° (lib/proofs/cell-totals.ts). Undefined
 * when the filter needs the rows themselves. `countRows` counts the rows of a filter exactly (the partial edge days
 * of a window).
 */
export async function countFromTotals(
  db: Db,
  f: ProofFilter,
  countRows: (f: ProofFilter) => Promise<number>,
): Promise<number | undefined> {
  const where = totalsCondition(f);
  if (where !== null) return sumOf(db, sql`select coalesce(sum(${c.n}), 0) as n from ${c}`, where);
  return (await countFromDayTotals(db, f, countRows)) ?? countFromCells(db, f, countRows);
}

async function sumOf(db: Db, select: SQL, where: SQL | undefined) {
  const [row] = await queryRows<{ n: string | number | null }>(
    db,
    sql`${select} ${where ? sql`where ${where}` : sql``}`,
  );
  return Number(row?.n ?? 0);
}

/** The condition on proof_counts equivalent to the filter, or null when there is none. */
function totalsCondition(f: ProofFilter): SQL | undefined | null {
  if (!testsOnly(f, ["chains", "hasCoordinates", "bbox"]) || (f.bbox && !coversWorld(f.bbox))) return null;
  const parts: SQL[] = [];
  if (!f.includeRevoked) parts.push(eq(c.revoked, false));
  if (f.chains?.length) parts.push(inArray(c.chain, f.chains));
  if (f.hasCoordinates !== undefined) parts.push(eq(c.hasPoint, f.hasCoordinates));
  // A world bbox matches exactly the proofs that have bounds (see bboxCondition); under the OGC rule it matches
  // every proof.
  if (f.bbox && !f.bboxMatchesMissing) parts.push(eq(c.hasBounds, true));
  return parts.length ? and(...parts) : undefined;
}

const DAY_SUM = sql`select coalesce(sum(${dc.n}), 0) as n from ${dc}`;

const utcDay = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS);

/**
 * A filter on chain, revoked and one time window (or on the proofs without an event time), from proof_day_counts:
 * the whole UTC days inside the window are added up there, and only the rows of the partial days at its edges are
 * counted (an index range on event_timestamp, a day's proofs at most). A window shorter than two days is counted
 * from its rows: it holds few. Null when the filter is not of that shape.
 */
async function countFromDayTotals(
  db: Db,
  f: ProofFilter,
  countRows: (f: ProofFilter) => Promise<number>,
): Promise<number | undefined> {
  if (!testsOnly(f, ["chains", "times", "hasEventTime", "bbox"])) return undefined;
  // A bbox is answered here only when it is no condition at all: the whole world under the OGC rule.
  if (f.bbox && !(coversWorld(f.bbox) && f.bboxMatchesMissing)) return undefined;
  const times = f.times ?? [];
  const parts: SQL[] = [];
  if (!f.includeRevoked) parts.push(eq(dc.revoked, false));
  if (f.chains?.length) parts.push(inArray(dc.chain, f.chains));
  if (times.length === 0) {
    if (f.hasEventTime !== false) return undefined;
    return sumOf(db, DAY_SUM, and(...parts, sql`${dc.day} is null`));
  }
  if (times.length !== 1 || f.timesMatchMissing || f.hasEventTime === false) return undefined;
  const window = times[0] as TimeInterval;
  const start = window.start?.getTime();
  const end = window.end?.getTime();
  if (start !== undefined && end !== undefined && end - start < 2 * DAY_MS) return undefined;
  // Whole days: from the first midnight at or after start to the last day ending at or before end.
  const firstDay = start === undefined ? undefined : utcDay(start + DAY_MS - 1);
  const endDay = end === undefined ? undefined : utcDay(end + 1);
  const days: SQL[] = [sql`${dc.day} is not null`];
  // Either day may be 10000-01-01, the midnight after the last accepted instant: a date PostgreSQL takes (sqlDate).
  if (firstDay) days.push(sql`${dc.day} >= ${sqlDate(firstDay)}`);
  if (endDay) days.push(sql`${dc.day} < ${sqlDate(endDay)}`);
  let total = await sumOf(db, DAY_SUM, and(...parts, ...days));
  const base = { ...f, times: undefined, hasEventTime: undefined };
  if (start !== undefined && firstDay && firstDay.getTime() > start) {
    total += await countRows({
      ...base,
      times: [{ start: window.start!, end: new Date(firstDay.getTime() - 1) }],
    });
  }
  if (end !== undefined && endDay && endDay.getTime() <= end) {
    total += await countRows({ ...base, times: [{ start: endDay, end: window.end! }] });
  }
  return total;
}
