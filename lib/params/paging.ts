import { getDb } from "../../db/client.js";
import { badParameter } from "../http/errors.js";
import { linkWith } from "../http/links.js";
import { encodeCursor } from "../proofs/cursor.js";
import type { ProofFilter } from "../proofs/filter.js";
import { type PageRequest, planPage } from "../proofs/plan.js";
import { pageAndCount } from "../proofs/query.js";
import type { ProofRow } from "../proofs/rows.js";
import type { Cursor } from "../proofs/sort.js";

/**
 * One page of proofs, whole: what the native and OGC writers write their bodies from.
 * `rows`: in the page's order; JsonRows (the JSON PostgreSQL wrote) when the query asked for `json`.
 * `total`: the exact number of matches (lib/proofs/count.ts). `start`: the page's place in the list, for a reader
 * ("51–100 of 120"), exact when paged by offset, a hint on a cursor page. `cursors`: the tokens of the pages after
 * and before it (null when there is none); pageLinks makes them links.
 */
export type ProofPage = {
  rows: ProofRow[];
  total: number;
  start: number;
  limit: number;
  /** the offset requested (0 on the first page), null on a cursor page */
  offset: number | null;
  cursors: { next: string | null; prev: string | null };
};

/**
 * One page of proofs for the native list and the OGC items alike (one paging rule): planned once (lib/proofs/plan.ts:
 * filter, order, cursor, WHERE), read (lib/proofs/query.ts), and the cursors of the pages beside it.
 *
 * A cursor (lib/proofs/cursor.ts) is the sort key of the page's last (next) or first (prev) row, so following one
 * is an index seek whatever the depth. A request may still page by `offset` (slower the deeper), but not with a
 * cursor too. `next` is given when a further row exists, `prev` when the page does not start the list.
 */
export async function proofPage(filter: ProofFilter, q: PageRequest): Promise<ProofPage> {
  const plan = planPage(filter, q);
  if ("problem" in plan) throw badParameter(plan.parameter, plan.problem);
  const { rows, parts, total, more } = await pageAndCount(await getDb(), plan);
  const cursor = plan.cursor;
  const backward = cursor?.direction === "prev";
  // The page's place in the list: exact when paged by offset; on a cursor page the position the link carried (a
  // hint, see Cursor), exact again once a prev page finds no rows before it.
  const start = !cursor
    ? (q.offset ?? 0)
    : !backward
      ? cursor.position
      : more
        ? Math.max(0, cursor.position - rows.length)
        : 0;
  const cursorAt = (direction: Cursor["direction"], at: number, position: number) =>
    encodeCursor(plan, direction, rows[at]!, position, parts[at]);
  // Reading forward, rows after the page exist when `more` says so, and rows before it when it did not start the
  // list; a prev page came from the rows after it, and `more` tells whether rows lie before it.
  const hasNext = backward || more;
  const hasPrev = backward ? more : cursor !== undefined || (q.offset ?? 0) > 0;
  return {
    rows,
    total,
    start,
    limit: q.limit,
    offset: cursor ? null : (q.offset ?? 0),
    cursors: {
      next: hasNext && rows.length ? cursorAt("next", rows.length - 1, start + rows.length) : null,
      prev: hasPrev && rows.length ? cursorAt("prev", 0, start) : null,
    },
  };
}

/**
 * The next/prev links of a page, on `path`: its cursor and limit, every other parameter of the request kept byte
 * for byte (linkWith), `offset` dropped.
 */
export function pageLinks(request: Request, path: string, page: ProofPage) {
  const link = (token: string | null) =>
    token === null ? null : linkWith(request, path, { limit: page.limit, cursor: token }, ["offset"]);
  return { next: link(page.cursors.next), prev: link(page.cursors.prev) };
}
