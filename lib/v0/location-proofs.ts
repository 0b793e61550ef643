import { getDb } from "../../db/client.js";
import { htmlResponse } from "../html/layout.js";
import { proofsPage } from "../html/proofs-page.js";
import { notFound } from "../http/errors.js";
import { negotiateFormat } from "../http/format.js";
import { json } from "../http/respond.js";
import { proofPage } from "../paging.js";
import type { ProofFilter, TimeInterval } from "../proofs/filter.js";
import { serializeProof } from "../proofs/properties.js";
import { findProofByUid } from "../proofs/query.js";
import type { ListQuery } from "./list-params.js";

const LIST_PATH = "/api/v0/location-proofs";

function listFilter(q: ListQuery): ProofFilter {
  const times: TimeInterval[] = [];
  if (q.fromTimestamp || q.toTimestamp) {
    times.push({
      ...(q.fromTimestamp ? { start: q.fromTimestamp } : {}),
      ...(q.toTimestamp ? { end: q.toTimestamp } : {}),
    });
  }
  if (q.datetime) times.push(q.datetime);
  return {
    ...(q.bbox ? { bbox: q.bbox } : {}),
    ...(q.chain ? { chains: q.chain } : {}),
    ...(q.prover ? { prover: q.prover } : {}),
    ...(q.subject ? { subject: q.subject } : {}),
    ...(q.filter === "hasCoordinates" ? { hasCoordinates: true } : {}),
    includeRevoked: q.includeRevoked,
    times,
  };
}

/**
 * The native list: one page in the default order, the total, and absolute next/prev links (a cursor each) keeping
 * every other parameter. `offset` is the one requested (0 on the first page), null on a cursor page; `start` (not in
 * the JSON) is the page's place in the list for the HTML pager, a hint on a cursor page (see proofPage).
 */
async function listPage(request: Request, q: ListQuery) {
  const limit = q.limit;
  const page = await proofPage(request, LIST_PATH, listFilter(q), {
    limit,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
  });
  const doc = {
    data: page.rows.map(serializeProof),
    pagination: {
      total: page.total,
      limit,
      offset: q.cursor !== undefined ? null : (q.offset ?? 0),
      returned: page.rows.length,
      next: page.next,
      prev: page.prev,
    },
  };
  return { doc, start: page.start };
}

/** The native list in the negotiated format: JSON (the default), or a page for a browser (same data). */
export async function listResource(request: Request, q: ListQuery): Promise<Response> {
  const { doc, start } = await listPage(request, q);
  return negotiateFormat(request, q.f) === "html"
    ? htmlResponse(proofsPage(request, LIST_PATH, doc, start))
    : json(doc);
}

/** One proof by uid, revoked or not (its `revoked` flag says which). */
export async function getLocationProof(uid: string) {
  const row = await findProofByUid(await getDb(), uid);
  if (!row) throw notFound(`No location proof with uid ${uid}`);
  return serializeProof(row);
}
