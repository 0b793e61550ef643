import { and, asc, eq } from "drizzle-orm";
import { type Db, transactionWithBudget } from "../../db/client.js";
import { locationProofs as p } from "../../db/schema.js";
import { getConfig } from "../config.js";
import { carriedDataVersion, carryDataVersion, ensureDataVersion } from "../data-version/version.js";
import { fewCells } from "./cell-totals.js";
import { pageCounts, sum } from "./count.js";
import { coversWorld, type IndexUse, type ProofFilter, whereClause } from "./filter.js";
import { coversSphere, distanceSql } from "./near.js";
import { cellsAround, readNearest } from "./nearest.js";
import { knownPopulation, type PagePlan, refreshPopulation, SMALL_RESULT, smallResult } from "./plan.js";
import { type JsonRow, type ProofRow, type RowsQuery, selectProofJson, selectProofs } from "./rows.js";
import { isDistanceSort, keysetSegments, orderBy, type Segment } from "./sort.js";

export type PageResult = {
  /** in the page's order, whichever direction the page was read */
  rows: ProofRow[];
  /** each row's part (countParts: located first), which a cursor made from the row names */
  parts: number[];
  total: number;
  /** the exact count of each of the filter's parts (countParts), which `total` adds up */
  counts: number[];
  /**
   * Whether more matches lie beyond the page in the direction it was read: after it (first, offset and `next`
   * pages), before it (`prev` pages).
   */
  more: boolean;
};

/**
 * The statements of a planned page (lib/proofs/plan.ts) and its exact number of matches (lib/proofs/count.ts), for
 * the native list and the OGC items. The page's order is its parts' (countParts: located first), each in the sort's
 * order. The counts decide the plan: nothing to fetch when there
 * is no match; filter-then-sort within a part whose matches are few; the order index within one whose matches are
 * many, where it meets `limit` matches within a few index pages. One row more than the page is read, to know
 * whether another page follows.
 *
 * A keyset page (first, next, prev) reads each part as index ranges from its cursor (keysetSegments) until the
 * page is full. An offset page finds its part from the parts' counts and reads the sort keys alone up to the offset
 * (RowsQuery.keysFirst): the rows it skips are never built.
 *
 * A count remembered from an earlier request (pageCounts.remembered) plans the page, and the page's own statement reads
 * the snapshot that proves it still exact: one statement for the request instead of two. When the snapshot moved
 * (a write since), the count is taken again and remembered under the page's snapshot; the rows stay (a commit
 * between the page and its recount shows in the count only, as it would between two requests).
 */
export async function pageAndCount(db: Db, page: PagePlan): Promise<PageResult> {
  if (!page.cursor && page.offset && page.parts.length > 1) {
    // An offset page across parts finds its part from their counts: counts and rows are read under one snapshot
    // (a read-only repeatable-read transaction), never from counts remembered under an older one, so a write in
    // between can neither skip nor repeat a row within the response. The request's version is read before it.
    await ensureDataVersion();
    return transactionWithBudget(
      db,
      getConfig().database.statementTimeoutMs,
      (tx) => readPage(tx as unknown as Db, page, false),
      ONE_SNAPSHOT,
    );
  }
  return readPage(db, page, true);
}

const ONE_SNAPSHOT = { isolationLevel: "repeatable read", accessMode: "read only" } as const;

async function readPage(db: Db, page: PagePlan, mayRemember: boolean): Promise<PageResult> {
  const { filter, where, parts } = page;
  // Counts the caller already holds (PageRequest.counts) are taken as they are: no count, no snapshot check.
  const known = page.counts;
  const remembered = mayRemember && !known ? pageCounts.remembered(db, filter, where) : undefined;
  const rememberedTotal = remembered ? sum(remembered.parts) : 0;
  // An empty result, or an offset past the end, is answered by the count alone: it is checked first.
  const checkedByPage =
    remembered !== undefined &&
    rememberedTotal > 0 &&
    !(!page.cursor && page.offset && page.offset >= rememberedTotal);
  // The nearest-first order: lib/proofs/nearest.ts.
  const nearest = isDistanceSort(page.order.sort) ? filter.near : undefined;
  // The request's data version (lib/data-version/version.ts): carried by the page's first statement when that is
  // the request's first (a remembered count, no nearest-first rings to size), else read before anything else.
  let carry = checkedByPage && !nearest ? carryDataVersion() : undefined;
  if (!carry) await ensureDataVersion();
  // A box or a circle's page chooses its plan by its matches and the table's size (smallResult): the size is read
  // with the counts, never by a page whose counts are remembered.
  const spatial = filter.bbox !== undefined || filter.near !== undefined;
  if (spatial && !known && !checkedByPage) await refreshPopulation(db);
  let counts = known ?? (checkedByPage ? remembered.parts : await pageCounts.parts(db, filter, where));
  let total = sum(counts);
  const none = { rows: [], parts: [], total, counts, more: false };
  if (total === 0) return none;
  if (!page.cursor && page.offset && page.offset >= total) return none;
  // (Parts of a located-first order always hold a condition: the box, the interval, or their absence.)
  const small = spatial ? smallResult(page.limit, knownPopulation(db)) : SMALL_RESULT;
  const selective = (part: number) => counts[part]! <= small && (parts.length > 1 || where !== undefined);
  const uses = parts.map((part, i) => indexUse(part, selective(i)));
  // A part of few matches found through the representative point's index (a small box on the OGC location-proofs
  // collection): its page's keys are sorted from that index alone, which holds them, and the rows read after.
  const keysFirst = parts.map(
    (part, i) =>
      selective(i) && part.bboxOn === "point" && part.bbox !== undefined && uses[i]!.bbox !== false,
  );
  const wheres = parts.map((part, i) => {
    const use = uses[i]!;
    return parts.length === 1 && use.bbox !== false && use.times !== false && use.near !== false
      ? where
      : whereClause(part, use);
  });
  const wanted = page.limit + 1;
  // A proximity filter: every row carries its distance from the point, in its JSON (PostgreSQL writes it there),
  // and as a number of its own where one is needed: rows read as fields, and the nearest-first order's ORDER BY and
  // cursors (lib/proofs/nearest.ts, sort.ts).
  const distance = filter.near ? distanceSql(filter.near) : undefined;
  const json = page.json?.(distance);
  const distanceColumn = json && !nearest ? undefined : distance;
  const keys = json ? page.keys.map((k) => k.column) : [];
  // The snapshot comes with the first statement that returns a row (an empty one carries none).
  let snapshot: string | undefined;
  const rows: ProofRow[] = [];
  const rowParts: number[] = [];
  // The page's byte budget (PagePlan.bytes): the bytes of JSON kept so far, and whether a statement stopped at the
  // budget, which ends the page there (its next cursor goes on from its last row).
  const budget = json ? page.bytes : undefined;
  let bytes = 0;
  let stopped = false;
  const readRows = async (q: RowsQuery) => {
    if (stopped) return [];
    const withSnapshot = {
      ...q,
      source: filter.source,
      distance: distanceColumn,
      snapshot: checkedByPage && snapshot === undefined,
      carry,
      ...(budget !== undefined ? { bytes: { budget: budget - bytes, first: rows.length === 0 } } : {}),
    };
    const result = await (json
      ? selectProofJson(db, withSnapshot, json, keys)
      : selectProofs(db, withSnapshot));
    snapshot ??= result.snapshot;
    if (carry) {
      carriedDataVersion(db, result.carried, result.snapshot);
      carry = undefined;
    }
    if (result.cut) stopped = true;
    return result.rows;
  };
  const keep = (part: number, read: ProofRow[]) => {
    for (const row of read) {
      rows.push(row);
      rowParts.push(part);
      if (budget !== undefined) bytes += Buffer.byteLength((row as JsonRow).json ?? "");
    }
  };
  const read = async (part: number, q: RowsQuery) => keep(part, await readRows(q));
  if (nearest) {
    // The nearest-first order (lib/proofs/nearest.ts): each part from the cursor's (or the offset's) on.
    const cursor = page.cursor;
    const backward = cursor?.direction === "prev";
    let part = cursor?.part ?? (backward ? parts.length - 1 : 0);
    let skip = !cursor && page.offset ? page.offset : 0;
    while (skip && skip >= counts[part]!) skip -= counts[part++]!;
    const from = part;
    for (
      ;
      part >= 0 && part < parts.length && rows.length < wanted && !stopped;
      part += backward ? -1 : 1, skip = 0
    ) {
      if (counts[part] === 0) continue;
      const found = await readNearest(
        {
          near: nearest,
          part: parts[part]!,
          count: counts[part]!,
          cursor: part === from ? cursor : undefined,
          backward,
          limit: wanted - rows.length,
          offset: skip,
          cells: () => cellsAround(db, nearest),
          stopped: () => stopped,
        },
        readRows,
      );
      keep(part, found);
    }
  } else if (!page.cursor && page.offset) {
    // The part the offset falls in, and the offset within it; the page continues into the parts after it.
    let skip = page.offset;
    let part = 0;
    while (skip >= counts[part]!) skip -= counts[part++]!;
    for (; part < parts.length && rows.length < wanted && !stopped; part++, skip = 0) {
      const avoidIndex = selective(part);
      await read(part, {
        where: wheres[part],
        orderBy: orderBy(page, { avoidIndex }),
        limit: wanted - rows.length,
        ...(skip ? { offset: skip, keysFirst: true } : keysFirst[part] ? { keysFirst: true } : {}),
      });
    }
  } else {
    const cursor = page.cursor;
    const backward = cursor?.direction === "prev";
    const from = cursor?.part ?? (backward ? parts.length - 1 : 0);
    for (
      let part = from;
      part >= 0 && part < parts.length && rows.length < wanted && !stopped;
      part += backward ? -1 : 1
    ) {
      const segments = keysetSegments(page, part === from ? cursor : undefined, {
        avoidIndex: selective(part),
        backward,
      }).filter((segment) => holdsFirstKey(parts[part]!, segment));
      for (const segment of segments) {
        if (rows.length >= wanted || stopped) break;
        await read(part, {
          where: and(wheres[part], segment.where),
          orderBy: segment.orderBy,
          limit: wanted - rows.length,
          ...(keysFirst[part] ? { keysFirst: true } : {}),
        });
      }
    }
  }
  // Keyed by the page's snapshot: it was read before the recount's statements.
  if (checkedByPage && snapshot !== remembered.snapshot) {
    counts = await pageCounts.parts(db, filter, where, snapshot);
    total = sum(counts);
  }
  // A page the byte budget ended has rows after it: the one it left out.
  const more = rows.length > page.limit || stopped;
  const kept = rows.slice(0, page.limit);
  const keptParts = rowParts.slice(0, page.limit);
  // A prev page was read backwards from its cursor.
  if (page.cursor?.direction === "prev") {
    kept.reverse();
    keptParts.reverse();
  }
  return { rows: kept, parts: keptParts, total, counts, more };
}

/**
 * Which conditions of a part a page's statement reads through an index (IndexUse). A part of many matches: not its
 * box (walking the order's index meets its matches within a few pages; through the GiST index the planner, trusting
 * a flat estimate, would fetch and sort a continent's). A part of few matches with a small box (fewCells): the box's
 * GiST index, the interval only a filter (else the planner ANDs the box's few entries with the interval's whole range
 * of the order index). A part of few matches with a large box and an interval, a prover or a subject: their index,
 * the box only a filter (its GiST scan would read the whole region). Otherwise the planner chooses.
 */
function indexUse(part: ProofFilter, selective: boolean): IndexUse {
  // A circle is read through the bounds' GiST index when its matches are few, else only tested (as a large box).
  const near = part.near && !coversSphere(part.near) && !selective ? { near: false } : {};
  const b = part.bbox;
  if (!b || coversWorld(b) || part.bboxMatchesMissing) return near;
  if (!selective) return { ...near, bbox: false };
  if (fewCells(b)) return { times: false };
  return part.times?.length || part.prover !== undefined || part.subject !== undefined ? { bbox: false } : {};
}

/**
 * Whether a part can hold rows in a keyset segment: a part that tests the first sort key's value (in the interval,
 * in the box) holds no row without it, and a part of the proofs without it none with it. Such a segment is not
 * read at all (a statement saved per page).
 */
function holdsFirstKey(part: ProofFilter, segment: Segment): boolean {
  const field = segment.part?.field;
  const tested =
    field === "event_timestamp"
      ? {
          has: Boolean(part.times?.length && !part.timesMatchMissing) || part.hasEventTime === true,
          lacks: part.hasEventTime === false,
        }
      : field === "longitude" || field === "latitude"
        ? {
            has: Boolean(part.bbox && !part.bboxMatchesMissing) || part.hasCoordinates === true,
            lacks: part.hasCoordinates === false,
          }
        : undefined;
  if (!tested) return true;
  return segment.part!.nulls ? !tested.has : !tested.lacks;
}

/**
 * One proof by uid, revoked or not. A uid is unique per chain; should two chains ever hold the same uid, the one of
 * the lowest chain id is returned (deterministically).
 */
export async function findProofByUid(db: Db, uid: string): Promise<ProofRow | undefined> {
  const { rows } = await selectProofs(db, { where: eq(p.uid, uid), orderBy: [asc(p.chainId)], limit: 1 });
  return rows[0];
}

/**
 * One record by uid, on chain or off it: the on-chain proof, else the off-chain record of that uid (lib/offchain/),
 * read as the lists read it (lib/proofs/source.ts), so whatever a list with `source` carries is found by its id too.
 */
export async function findRecordByUid(db: Db, uid: string): Promise<ProofRow | undefined> {
  const onchain = await findProofByUid(db, uid);
  if (onchain) return onchain;
  const { rows } = await selectProofs(db, {
    source: "offchain",
    where: eq(p.uid, uid),
    orderBy: [asc(p.chainId)],
    limit: 1,
  });
  return rows[0];
}
