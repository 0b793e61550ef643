import { getDb } from "../../db/client.js";
import { badParameter } from "../http/errors.js";
import { pageCounts } from "../proofs/count.js";
import { encodeCursor } from "../proofs/cursor.js";
import type { ProofFilter } from "../proofs/filter.js";
import type { RowJson } from "../proofs/json-sql.js";
import { planPage } from "../proofs/plan.js";
import { type PageResult, pageAndCount } from "../proofs/query.js";
import type { JsonRow } from "../proofs/rows.js";
import type { SortSpec } from "../proofs/sort.js";

/** Where a download starts and how much of the result it takes (all of it, from the start, unless told). */
export type BatchRequest = {
  sort?: SortSpec[];
  json: RowJson;
  /** rows in all; undefined: every match */
  limit?: number;
  /** start after this many matches (the resume link of a download cut at its row budget) */
  offset?: number;
  /** start where a page's next link would (a JSON page's cursor) */
  cursor?: string;
  /** the counts of the filter's parts, already taken (countsFirst): no batch counts */
  counts?: number[];
  /** the row text one batch reads at most (batchBytes) */
  bytes: number;
};

/**
 * A batch of rows, and how to let go of them once they are encoded: `release` empties the array handed on and drops
 * each row's text (the driver's own arrays are emptied as they are read: lib/proofs/rows.ts).
 */
export type Batch = { rows: JsonRow[]; total: number; release(): void };

/**
 * The exact counts of the filter's parts (lib/proofs/count.ts: from the totals, remembered, or counted), taken before
 * any row is read, so that a response can announce its number of rows and send its first bytes while the first batch
 * is still being read; or undefined for a download that starts at an offset across several parts, whose first batch
 * reads its counts and rows under one snapshot (pageAndCount) and so must count itself.
 */
export async function countsFirst(filter: ProofFilter, q: BatchRequest): Promise<number[] | undefined> {
  const plan = planPage(filter, { limit: 1, ...(q.sort ? { sort: q.sort } : {}), json: q.json });
  if ("problem" in plan) throw badParameter(plan.parameter, plan.problem);
  if (q.offset && plan.parts.length > 1) return undefined;
  return pageCounts.parts(await getDb(), plan.filter, plan.where);
}

/**
 * A download's rows, as a keyset stream over the lists' own page plan: each batch is a page planned by planPage and
 * read by pageAndCount (lib/proofs/), exactly as a JSON page of the same filter and order, and the next batch follows
 * the last row's cursor (an index seek whatever the depth). So a download holds the same rows, in the same order,
 * as a harvest of the pages — there is no second query path. Only the first batch may start at an offset.
 *
 * `size(n)` is the batch size of the n-th batch: small first, for an early first byte, larger after, so that
 * statements are few. The caller pulls: nothing is read ahead of what it asks for (backpressure), and returning the
 * generator (a client gone) stops it after the statement in flight.
 */
export async function* proofBatches(
  filter: ProofFilter,
  q: BatchRequest,
  size: (n: number) => number,
): AsyncGenerator<Batch> {
  const db = await getDb();
  let left = q.limit ?? Number.POSITIVE_INFINITY;
  let cursor = q.cursor;
  let offset = q.offset;
  let position = q.offset ?? 0;
  // The first batch counts the matches (the response announces its number of rows); the later ones plan with those
  // counts and take none: a write meanwhile would otherwise make every later batch count again.
  let counts: number[] | undefined = q.counts;
  // The rows a batch's byte budget (PAGE_BYTES, as a page's) holds, from the bytes per row read so far: a statement
  // asked for more rows than its budget holds writes the JSON of all of them and sends only those within it, so the
  // JSON of the rest would be written for nothing, again in the next batch. Kept a tenth below the budget.
  let bytesRead = 0;
  let rowsRead = 0;
  const bytes = q.bytes;
  const fits = () => (rowsRead ? Math.max(1, Math.floor((0.9 * bytes * rowsRead) / bytesRead)) : Infinity);
  for (let n = 0; left > 0; n++) {
    const plan = planPage(filter, {
      limit: Math.min(size(n), left, fits()),
      ...(cursor !== undefined ? { cursor } : {}),
      ...(offset ? { offset } : {}),
      ...(q.sort ? { sort: q.sort } : {}),
      json: q.json,
      bytes,
      ...(counts ? { counts } : {}),
    });
    if ("problem" in plan) throw badParameter(plan.parameter, plan.problem);
    let page: PageResult | undefined = await pageAndCount(db, plan);
    counts = page.counts;
    const rows = page.rows as JsonRow[];
    const read = rows.length;
    for (const row of rows) bytesRead += row.json.length;
    rowsRead += read;
    const more = page.more;
    // The next batch's cursor, made before the rows are handed on (the consumer lets go of them).
    const next =
      more && read > 0
        ? encodeCursor(plan, "next", rows[read - 1]!, position + read, page.parts[page.parts.length - 1])
        : undefined;
    let batch: Batch | undefined = {
      rows,
      total: page.total,
      release: () => {
        // Each row's text dropped too: a row object may outlive the array (a writer's closure, a pending write).
        for (const row of rows) row.json = "";
        rows.length = 0;
      },
    };
    // Nothing here refers to the rows while the next batch is read: a generator's frame lives as long as the
    // download, and rows it still referred to would survive every young-generation collection meanwhile (V8 then
    // promotes them and grows the young generation, which is most of a download's memory).
    page = undefined;
    yield batch;
    batch = undefined;
    left -= read;
    position += read;
    if (next === undefined) return;
    cursor = next;
    offset = undefined;
  }
}
