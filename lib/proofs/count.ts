import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { type Db, queryRows } from "../../db/client.js";
import { requestSnapshot } from "../data-version/version.js";
import { type ProofFilter, whereClause } from "./filter.js";
import { readSnapshot, rememberedPerDb } from "./remembered.js";
import type { Located } from "./sort.js";
import { proofsFrom } from "./source.js";
import { countFromTotals } from "./totals.js";

/*
 * How a count is made. `numberMatched` (OGC), `pagination.total` (native) and GraphQL's totalCount are exact, never
 * an estimate, and all come from here: `pageCounts` beside a page (lib/proofs/query.ts, pageAndCount), and
 * `countMatching` alone. An exact COUNT visits every matching index entry, so its cost grows with the matches; the
 * mechanisms below answer the common filters without that visit. Each holds an invariant that keeps the count
 * exact, and each has request types of its own in `npm run bench:scale` that show what it saves (a chain, a
 * one-month window, a continent; and every type's p50 right after a write, when a remembered count is taken again).
 *
 * 1. Located first: counting in parts (countParts). Under the OGC rule a bbox also matches the proofs without
 *    geometry and a datetime those without an event time. The filter is split into disjoint parts — in the box /
 *    without geometry, in the interval / without an event time, and their products — that together match exactly
 *    what the filter matches, each an index range; one count of the OR would visit every proof without geometry
 *    again. Invariant: the parts are disjoint and their union is the filter, so their counts add up to its count.
 *    The same parts are the page's order (located features first: locatedFirst), so a page's cursor names its part.
 *
 * 2. Totals kept by the database (lib/proofs/totals.ts, countFromTotals). Three tables, each kept by
 *    statement-level triggers in the same transaction as every insert, update and delete of location_proofs
 *    (db/schema.ts, db/migrations/): whoever sees the rows sees totals that agree with them.
 *    - proof_counts (chain, revoked, has bounds, has a point): a filter of chain, revoked, has coordinates and a bbox
 *      covering the world is a sum of its rows.
 *    - proof_day_counts (chain, revoked, UTC day, null for no event time): a window of two days or more adds up its
 *      whole days there and counts the rows of its two partial edge days; invariant: the whole days and the two edge
 *      intervals are disjoint and cover the window.
 *    - proof_cell_counts (chain, revoked, 1° cell of the proofs whose bounds lie within one cell): a bbox of at least
 *      2° × 2° (lib/proofs/cell-totals.ts) adds up the cells wholly inside it and counts rows only in a thin frame
 *      along its edges and for the proofs whose bounds span a grid line; invariant: the three parts are disjoint and
 *      hold every match (cell-totals.ts says why).
 *    A filter of any other shape (a prover, a small box, a CQL2 condition) is counted from its rows (countProofs).
 *    The statistics (lib/proofs/stats.ts) add up proof_counts per chain under the same invariant, and their 7- and
 *    30-day windows proof_day_counts' whole days from each window's first midnight plus the rows of its partial
 *    first day (disjoint, covering the window, which has no end); the nearest-first
 *    order (lib/proofs/nearest.ts) reads proof_cell_counts only to size its first ring, never as a count.
 *
 * 3. Remembered while nothing changed (createCountCache). A count is kept with the MVCC snapshot
 *    (`pg_current_snapshot()`: xmin, xmax and the transactions in progress) read before its statements. Every
 *    writing transaction changes the snapshot — it takes a transaction id (xmax moves) and is listed as in progress
 *    until it ends — so a commit that becomes visible after a snapshot was read changes every later snapshot, for
 *    good. Invariant: a count taken after reading snapshot S is exactly the count under S whenever a later statement
 *    reads S again; no commit can have become visible in between (however many parts and totals the count adds up).
 *    (A WAL position is not such a key: a commit's WAL record is written before the commit becomes visible.)
 *    Unrelated writes also change the snapshot: that costs a recount, never a wrong answer. A page reads the snapshot
 *    inside its own statement (RowsQuery.snapshot), so a request whose count is remembered is one statement. Where the
 *    snapshot cannot be read (PostgreSQL before 13), nothing is remembered. Per process, per database handle, bounded
 *    (lib/proofs/remembered.ts). The statistics are remembered the same way, with one more bound: their time windows
 *    move with the clock, so they hold only until the first proof of a window leaves it (nothing enters a window as
 *    time passes: a window has no end), an instant their own statement computes (lib/proofs/stats.ts, UNTIL).
 */

/** How many proofs match the filter, counted from the rows (the same WHERE clause as the page). */
export async function countProofs(db: Db, filter: ProofFilter, where = whereClause(filter)): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(
    db,
    sql`select count(*) as n from ${proofsFrom(filter.source)}${where ? sql` where ${where}` : sql``}`,
  );
  return Number(row?.n ?? 0);
}

/**
 * What the OGC items put first when a bbox or a datetime is given: the features that have a geometry (bbox), an
 * event time (datetime), or both, in that order of importance. Under the standard's rule (Part 1,
 * /req/core/fc-bbox-response C, /req/core/fc-time-response C) a bbox also matches every feature without geometry
 * and a datetime every feature without an event time; read in the plain order, a map client paging a city's box
 * would get pages of features it cannot place before the city's own. `numberMatched` stays the standard's count.
 * Empty for every other filter (the native API's rule never matches a proof without the value tested).
 */
export function locatedFirst(f: ProofFilter): Located {
  const located: ("geometry" | "time")[] = [];
  if (f.bboxMatchesMissing && f.bbox && f.hasCoordinates === undefined) located.push("geometry");
  if (f.timesMatchMissing && f.times?.length && f.hasEventTime === undefined) located.push("time");
  return located;
}

/**
 * The disjoint parts of a filter, in the order a page reads them (locatedFirst): for a bbox, the features in the
 * box, then those without geometry; for a datetime, those in the interval, then those without an event time; for
 * both, geometry first: (in the box and the interval), (in the box, no time), (no geometry, in the interval),
 * (neither). The parts without geometry come from proof_counts where the other conditions allow (chain, revoked),
 * or from a small partial index (db/schema.ts). A filter with nothing located first is its own one part.
 */
export function countParts(f: ProofFilter): ProofFilter[] {
  let parts = [f];
  for (const dimension of locatedFirst(f)) {
    parts = parts.flatMap((q): ProofFilter[] =>
      dimension === "geometry"
        ? [
            { ...q, bboxMatchesMissing: false },
            { ...q, bbox: undefined, bboxMatchesMissing: false, hasCoordinates: false },
          ]
        : [
            { ...q, timesMatchMissing: false },
            { ...q, times: undefined, timesMatchMissing: false, hasEventTime: false },
          ],
    );
  }
  return parts;
}

/** The exact number of matches of each part, not remembered: from the totals where they answer it, else the rows. */
async function countMatches(db: Db, filter: ProofFilter, where: SQL | undefined): Promise<number[]> {
  // Both sources: the on-chain part's count as ever (its totals where they answer it), the off-chain records' from
  // their rows; the two tables are disjoint, so the counts add up.
  if (filter.source === "all") {
    const onchain = await countMatches(db, { ...filter, source: undefined }, undefined);
    const offchain = await countMatches(db, { ...filter, source: "offchain" }, undefined);
    return onchain.map((n, i) => n + offchain[i]!);
  }
  const parts = countParts(filter);
  const rows = (f: ProofFilter) => countProofs(db, f, f === filter ? where : whereClause(f));
  const counts: number[] = [];
  // The totals tables count the on-chain table only.
  for (const part of parts)
    counts.push((filter.source ? undefined : await countFromTotals(db, part, rows)) ?? (await rows(part)));
  return counts;
}

export const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** Exact counts, remembered while the database provably has not changed (mechanism 3 above). */
export function createCountCache(maxEntries = 500) {
  const counts = rememberedPerDb<number[]>(maxEntries);
  const dialect = new PgDialect();

  /**
   * The filter's identity: its own fields (dates as ISO text), or, when it holds SQL (a CQL2 condition), the
   * compiled WHERE clause. Two keys differ whenever the filters could match differently.
   */
  const keyOf = (filter: ProofFilter, where: SQL | undefined) => {
    if (!filter.where?.length) return JSON.stringify(filter);
    const compiled = where ? dialect.sqlToQuery(where) : { sql: "", params: [] };
    return `${filter.source ?? ""}\u0000${compiled.sql}\u0000${JSON.stringify(compiled.params)}`;
  };

  /**
   * The exact count of each of the filter's parts (countParts), in their order. `read`: a snapshot the caller read
   * in a statement of its own just before (a page's, RowsQuery.snapshot); else the one the request's data version
   * was read under, from the same handle (lib/data-version/version.ts). Any snapshot read before the count's
   * statements is a valid key, so either spares a statement.
   */
  async function partCounts(
    db: Db,
    filter: ProofFilter,
    where = whereClause(filter),
    read?: string,
  ): Promise<number[]> {
    const snapshot = read ?? (await requestSnapshot(db)) ?? (await readSnapshot(db))?.snapshot;
    if (snapshot === undefined) return countMatches(db, filter, where);
    const key = keyOf(filter, where);
    const hit = counts.get(db, key);
    if (hit?.snapshot === snapshot) return hit.value;
    const parts = await countMatches(db, filter, where);
    counts.set(db, key, { snapshot, value: parts });
    return parts;
  }

  /** The exact number of matches (the parts' counts added up), remembered as partCounts are. */
  const cachedCount = async (db: Db, filter: ProofFilter, where = whereClause(filter), read?: string) =>
    sum(await partCounts(db, filter, where, read));

  /**
   * The counts last taken for the filter and the snapshot they hold under, without asking the database: a caller
   * that reads the snapshot in a statement of its own (a page, RowsQuery.snapshot) and finds it identical has the
   * exact counts without a statement for them. Only a server with pg_current_snapshot() has remembered counts.
   */
  const remembered = (db: Db, filter: ProofFilter, where = whereClause(filter)) => {
    const hit = counts.get(db, keyOf(filter, where));
    return hit && { snapshot: hit.snapshot, parts: hit.value };
  };

  return Object.assign(cachedCount, { remembered, parts: partCounts });
}

const exactCount = createCountCache();

/**
 * The counts a page is planned with (lib/proofs/query.ts, pageAndCount): `remembered` gives those last taken and
 * the snapshot they hold under (no statement); `parts` takes them (or finds them remembered), keyed by `snapshot`
 * when the caller read one in its own statement.
 */
export const pageCounts = { remembered: exactCount.remembered, parts: exactCount.parts };

/**
 * How many proofs match the filter, exactly: the count a page carries, for a reader that wants the count alone
 * (GraphQL's locationProofsCount).
 */
export const countMatching = (db: Db, filter: ProofFilter): Promise<number> => exactCount(db, filter);
