import type { SQL } from "drizzle-orm";
import { getDb } from "../../db/client.js";
import { htmlResponse } from "../html/layout.js";
import { proofsPage } from "../html/proofs-page.js";
import { notFound } from "../http/errors.js";
import { negotiateFormat } from "../http/format.js";
import { bytesResponse, JSON_TYPE, listBytes, stringify } from "../http/respond.js";
import { proofPage } from "../paging.js";
import { type ProofFilter, sourceFilter, type TimeInterval } from "../proofs/filter.js";
import { RECORD_JSON } from "../proofs/json-sql.js";
import { withDistance } from "../proofs/near.js";
import { serializeProof } from "../proofs/properties.js";
import { findProofByUid } from "../proofs/query.js";
import type { JsonRow, ProofRow } from "../proofs/rows.js";
import { DISTANCE } from "../proofs/sort.js";
import { proximityOf } from "../proximity-params.js";
import type { ListQuery } from "./list-params.js";
import { listPathOf } from "./paths.js";

/** The filter model of a parsed native list query (the GraphQL list builds its filter with it too: lib/graphql/). */
export function listFilter(q: ListQuery): ProofFilter {
  const times: TimeInterval[] = [];
  if (q.fromTimestamp || q.toTimestamp) {
    times.push({
      ...(q.fromTimestamp ? { start: q.fromTimestamp } : {}),
      ...(q.toTimestamp ? { end: q.toTimestamp } : {}),
    });
  }
  if (q.datetime) times.push(q.datetime);
  const near = proximityOf(q, { parameter: "sort", nearest: q.sort === "distance" });
  return {
    ...(q.bbox ? { bbox: q.bbox } : {}),
    ...(near ? { near } : {}),
    ...(q.chain ? { chains: q.chain } : {}),
    ...sourceFilter(q),
    ...(q.prover ? { prover: q.prover } : {}),
    ...(q.subject ? { subject: q.subject } : {}),
    ...(q.filter === "hasCoordinates" ? { hasCoordinates: true } : {}),
    includeRevoked: q.includeRevoked,
    times,
  };
}

/**
 * The native list: one page in the default order, the total, and absolute next/prev links (a cursor each) keeping
 * every other parameter, on the list path the request came in by (listPathOf). `offset` is the one requested (0 on
 * the first page), null on a cursor page; `start` (not in the JSON) is the page's place in the list for the HTML
 * pager, a hint on a cursor page (see proofPage); `cursors` are the links' bare cursors (the GraphQL list's paging).
 * With `json`, the rows are read as that JSON text (JsonRows) rather than as fields.
 */
export async function listPage(request: Request, q: ListQuery, json?: SQL) {
  const limit = q.limit;
  const page = await proofPage(request, listPathOf(request), listFilter(q), {
    limit,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
    ...(q.sort === "distance" ? { sort: [{ field: DISTANCE, descending: false }] } : {}),
    ...(json ? { json } : {}),
  });
  const pagination = {
    total: page.total,
    limit,
    offset: q.cursor !== undefined ? null : (q.offset ?? 0),
    returned: page.rows.length,
    next: page.next,
    prev: page.prev,
  };
  return { rows: page.rows, pagination, start: page.start, cursors: page.cursors };
}

/**
 * The native list in the negotiated format: JSON (the default), its records written by PostgreSQL and joined here
 * (lib/proofs/json-sql.ts); or a page for a browser, from the same query's rows.
 */
export async function listResource(request: Request, q: ListQuery): Promise<Response> {
  if (negotiateFormat(request, q.f) === "html") {
    const { rows, pagination, start } = await listPage(request, q);
    return htmlResponse(
      proofsPage(request, listPathOf(request), { data: rows.map(recordOf), pagination }, start),
    );
  }
  const { rows, pagination } = await listPage(request, q, RECORD_JSON);
  // In a proximity query each record ends with its distance (metres), spliced into the text PostgreSQL wrote.
  const texts = (rows as JsonRow[]).map((row) =>
    row.distance === undefined ? row.json : withDistance(row.json, row.distance),
  );
  const body = listBytes('{"data":[', texts, `],"pagination":${stringify(pagination)}}`);
  return bytesResponse(body, { contentType: JSON_TYPE });
}

/** A record as the list serves it: the proof, and its distance in a proximity query. */
const recordOf = (row: ProofRow) =>
  row.distance === undefined ? serializeProof(row) : { ...serializeProof(row), distance: row.distance };

/** One proof by uid, revoked or not (its `revoked` flag says which). */
export async function getLocationProof(uid: string) {
  const row = await findProofByUid(await getDb(), uid);
  if (!row) throw notFound(`No location proof with uid ${uid}`);
  return serializeProof(row);
}
