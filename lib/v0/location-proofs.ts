import { getDb } from "../../db/client.js";
import { ensureDataVersion } from "../data-version/version.js";
import { listDownload } from "../exports/lists.js";
import { exportFormatOf } from "../exports/negotiate.js";
import { htmlResponse } from "../html/layout.js";
import { proofsPage } from "../html/proofs-page.js";
import { notFound } from "../http/errors.js";
import { negotiateFormat } from "../http/format.js";
import { baseUrl } from "../http/links.js";
import { bytesResponse, JSON_TYPE, listBytes, stringify } from "../http/respond.js";
import { findOffchain, serializeOffchain } from "../offchain/records.js";
import { type ProofPage, pageLinks, proofPage } from "../params/paging.js";
import { proximityOf } from "../params/proximity.js";
import { sharedFilter } from "../params/to-filter.js";
import type { ProofFilter, TimeInterval } from "../proofs/filter.js";
import { type RowJson, recordListJson } from "../proofs/json-sql.js";
import { serializeProof } from "../proofs/properties.js";
import { findProofByUid } from "../proofs/query.js";
import type { JsonRow } from "../proofs/rows.js";
import { DISTANCE } from "../proofs/sort.js";
import type { ListQuery } from "./list-params.js";
import { LIST_PATH, listPathOf } from "./paths.js";

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
    ...sharedFilter(q, near),
    ...(q.filter === "hasCoordinates" ? { hasCoordinates: true } : {}),
    includeRevoked: q.includeRevoked,
    times,
  };
}

/**
 * A record as the lists carry it (the native list, the MCP search): each value within its bound
 * (lib/bounds/limits.ts), a record with a value cut marked `truncated` and pointing at its record by uid.
 */
export const LIST_RECORD_JSON: RowJson = recordListJson(`${LIST_PATH}/`);

/**
 * The native list's page in the default order (lib/params/paging.ts, proofPage), its rows as `json` writes them (JsonRows)
 * when given, else as fields; the GraphQL list pages with it too.
 */
export const listPage = (q: ListQuery, json?: RowJson, bytes?: number): Promise<ProofPage> =>
  proofPage(listFilter(q), {
    limit: q.limit,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
    ...(q.sort === "distance" ? { sort: [{ field: DISTANCE, descending: false }] } : {}),
    ...(json ? { json } : {}),
    ...(bytes !== undefined ? { bytes } : {}),
  });

/**
 * The list's `pagination` member: the total, the page's size and offset (null on a cursor page), and absolute
 * next/prev links (a cursor each) keeping every other parameter, on the list path the request came in by
 * (listPathOf).
 */
function pagination(request: Request, page: ProofPage) {
  const { next, prev } = pageLinks(request, listPathOf(request), page);
  return {
    total: page.total,
    limit: page.limit,
    offset: page.offset,
    returned: page.rows.length,
    next,
    prev,
  };
}

/**
 * The native list in the negotiated format. JSON (the default): the whole body written here from the page, its
 * records as PostgreSQL wrote them (lib/proofs/json-sql.ts; in a proximity query each ends with its distance)
 * copied into one buffer (listBytes). HTML: a page for a browser, from the same query's rows.
 */
export async function listResource(request: Request, q: ListQuery): Promise<Response> {
  // A download format (f or Accept): every match, streamed (lib/exports/).
  const download = exportFormatOf(request, q.f);
  const html = !download && negotiateFormat(request, q.f) === "html";
  // The JSON page carries the request's data version in its statement; a download and the HTML page (its map's tile
  // URLs name the version) read it first (lib/data-version/version.ts).
  if (download || html) await ensureDataVersion();
  if (download) return listDownload(request, q, download, listFilter(q));
  if (html) {
    // The same records as the JSON, within the same bounds.
    const page = await listPage(q, LIST_RECORD_JSON);
    const data = (page.rows as JsonRow[]).map((row) => JSON.parse(row.json) as Record<string, unknown>);
    const doc = { data, pagination: pagination(request, page) };
    return htmlResponse(proofsPage(request, listPathOf(request), doc, page.start));
  }
  const page = await listPage(q, LIST_RECORD_JSON);
  const texts = (page.rows as JsonRow[]).map((row) => row.json);
  const tail = `],"pagination":${stringify(pagination(request, page))}}`;
  return bytesResponse(listBytes('{"data":[', texts, tail), { contentType: JSON_TYPE });
}

/**
 * One proof by uid, revoked or not (its `revoked` flag says which); an off-chain record (lib/offchain/) when no
 * on-chain attestation has the uid, with `source: "offchain"` and its signer. With a request, links are absolute to
 * its origin.
 */
export async function getLocationProof(uid: string, request?: Request) {
  const db = await getDb();
  const row = await findProofByUid(db, uid);
  if (row) return serializeProof(row);
  const offchain = await findOffchain(db, uid);
  if (offchain) return serializeOffchain(offchain, request ? baseUrl(request) : "");
  throw notFound(`No location proof with uid ${uid}`);
}
