import { getDb } from "../../db/client.js";
import { notFound } from "../http/errors.js";
import { pageLinks } from "../http/links.js";
import type { ProofFilter, TimeInterval } from "../proofs/filter.js";
import { findProofByUid, pageAndCount } from "../proofs/query.js";
import { serializeProof } from "../proofs/serialize.js";
import { LIST_DEFAULT_LIMIT, type ListQuery } from "./list-params.js";

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
    includeRevoked: q.includeRevoked ?? false,
    times,
  };
}

/** The native list: one page in the default order, the total, and absolute next/prev links keeping every filter. */
export async function listLocationProofs(request: Request, q: ListQuery) {
  const limit = q.limit ?? LIST_DEFAULT_LIMIT;
  const offset = q.offset ?? 0;
  const { rows, total } = await pageAndCount(await getDb(), listFilter(q), { limit, offset });
  return {
    data: rows.map(serializeProof),
    pagination: {
      total,
      limit,
      offset,
      returned: rows.length,
      // Every other parameter byte for byte, as the client sent it (never re-encoded).
      ...pageLinks(request, LIST_PATH, { offset, limit, returned: rows.length, total }),
    },
  };
}

/** One proof by uid, revoked or not (its `revoked` flag says which). */
export async function getLocationProof(uid: string) {
  const row = await findProofByUid(await getDb(), uid);
  if (!row) throw notFound(`No location proof with uid ${uid}`);
  return serializeProof(row);
}
