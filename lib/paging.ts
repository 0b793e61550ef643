import type { SQL } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { badParameter } from "./http/errors.js";
import { linkWith } from "./http/links.js";
import { decodeCursor, encodeCursor } from "./proofs/cursor.js";
import type { ProofFilter } from "./proofs/filter.js";
import { pageAndCount } from "./proofs/query.js";
import type { Cursor, SortSpec } from "./proofs/sort.js";

/** The paging parameters of the native list and the OGC items, as parsed (the cursor still a token). */
export type PagingQuery = {
  limit: number;
  offset?: number;
  cursor?: string;
  sort?: SortSpec[];
  /** Rows as this JSON (lib/proofs/json-sql.ts), JsonRows, for a JSON response; full rows without it. */
  json?: SQL;
};

/**
 * One page of proofs and its next/prev links, for the native list and the OGC items alike (one paging rule).
 *
 * The links carry a cursor (lib/proofs/cursor.ts), the sort key of the page's last (next) or first (prev) row, so
 * following them is an index seek whatever the depth; `offset` in the request is dropped from them, every other
 * parameter is kept byte for byte (linkWith). A request may still page by `offset` (slower the deeper), but not
 * with a cursor too. `next` is given when a further row exists, `prev` when the page does not start the list.
 * `start` is the page's place in the list, for a reader ("51–100 of 120"); on a cursor page only a hint.
 * `cursors` are the links' bare tokens, for a reader that pages without links (the GraphQL list).
 */
export async function proofPage(request: Request, path: string, filter: ProofFilter, q: PagingQuery) {
  if (q.cursor !== undefined && q.offset !== undefined) {
    throw badParameter(
      "cursor",
      "cursor and offset cannot be combined: the cursor already names where the page starts",
    );
  }
  let cursor: Cursor | undefined;
  if (q.cursor !== undefined) {
    const decoded = decodeCursor(q.cursor, q.sort);
    if ("problem" in decoded) throw badParameter("cursor", decoded.problem);
    cursor = decoded;
  }
  const { rows, total, more } = await pageAndCount(await getDb(), filter, {
    limit: q.limit,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(cursor ? { cursor } : {}),
    ...(q.sort ? { sort: q.sort } : {}),
    ...(q.json ? { json: q.json } : {}),
  });
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
  const first = rows[0];
  const last = rows.at(-1);
  // Reading forward, rows after the page exist when `more` says so, and rows before it when it did not start the
  // list; a prev page came from the rows after it, and `more` tells whether rows lie before it.
  const hasNext = backward || more;
  const hasPrev = backward ? more : cursor !== undefined || (q.offset ?? 0) > 0;
  const cursors = {
    next: hasNext && last ? encodeCursor(q.sort, "next", last, start + rows.length) : null,
    prev: hasPrev && first ? encodeCursor(q.sort, "prev", first, start) : null,
  };
  const link = (token: string | null) =>
    token === null ? null : linkWith(request, path, { limit: q.limit, cursor: token }, ["offset"]);
  return { rows, total, start, next: link(cursors.next), prev: link(cursors.prev), cursors };
}
