import * as v from "valibot";
import { getDb } from "../../db/client.js";
import { notFound } from "../http/errors.js";
import { absoluteUrl, linkWith, pageLinks } from "../http/links.js";
import { log } from "../log.js";
import { uidParam } from "../params.js";
import type { ProofFilter } from "../proofs/filter.js";
import { findProofByUid, pageAndCount } from "../proofs/query.js";
import { cql2Filter } from "./cql2/index.js";
import { type OgcFeature, toFeature } from "./feature.js";
import type { Format } from "./format.js";
import type { ItemsQuery } from "./items-params.js";
import { parseSortby } from "./sortby.js";
import { alternates, type Link, MEDIA, OGC_DEFAULT_LIMIT, PATHS, REL } from "./vocabulary.js";

/**
 * The OGC collection holds every indexed proof, revoked ones included: a feature's `revoked` property says which,
 * and `filter=revoked=false` leaves them out. (The native list hides revoked proofs unless asked; a map client
 * reading a dataset expects all of it, and the single-feature endpoint must serve whatever items lists.)
 */
export function itemsFilter(q: ItemsQuery): ProofFilter {
  return {
    includeRevoked: true,
    ...(q.bbox ? { bbox: q.bbox } : {}),
    ...(q.chain ? { chains: q.chain } : {}),
    ...(q.prover ? { prover: q.prover } : {}),
    ...(q.subject ? { subject: q.subject } : {}),
    ...(q.datetime ? { times: [q.datetime] } : {}),
    ...(q.filter ? { where: [cql2Filter(q.filter)] } : {}),
  };
}

export type FeatureCollection = {
  type: "FeatureCollection";
  timeStamp: string;
  numberMatched: number;
  numberReturned: number;
  features: OgcFeature[];
  links: Link[];
};

/** GET …/items: one page of features, the exact number matched, and links that keep every other parameter. */
export async function getItems(request: Request, q: ItemsQuery, format: Format): Promise<FeatureCollection> {
  const limit = q.limit ?? OGC_DEFAULT_LIMIT;
  const offset = q.offset ?? 0;
  const filter = itemsFilter(q);
  const sort = q.sortby ? parseSortby(q.sortby) : undefined;
  const { rows, total } = await pageAndCount(await getDb(), filter, {
    limit,
    offset,
    ...(sort ? { sort } : {}),
  });
  const features = rows.map(toFeature);
  // The query string as received, for operators (and the GDAL client check, which verifies that a -where filter
  // reached the server): the shared request log line records only the path.
  log("debug", "ogc items", {
    query: new URL(request.url).search,
    matched: total,
    returned: features.length,
  });
  const { selfType, otherType, otherF } = alternates(format, MEDIA.geojson);
  const links: Link[] = [
    { href: linkWith(request, PATHS.items, {}), rel: REL.self, type: selfType, title: "This page" },
    {
      href: linkWith(request, PATHS.items, { f: otherF }),
      rel: REL.alternate,
      type: otherType,
      title: "This page",
    },
    {
      href: absoluteUrl(request, PATHS.collection),
      rel: REL.collection,
      type: MEDIA.json,
      title: "The collection",
    },
  ];
  const { next, prev } = pageLinks(request, PATHS.items, { offset, limit, returned: features.length, total });
  if (next) links.push({ href: next, rel: REL.next, type: selfType, title: "Next page" });
  if (prev) links.push({ href: prev, rel: REL.prev, type: selfType, title: "Previous page" });
  return {
    type: "FeatureCollection",
    timeStamp: new Date().toISOString(),
    numberMatched: total,
    numberReturned: features.length,
    features,
    links,
  };
}

/** GET …/items/{uid}: one feature, revoked or not, with links self, alternate and collection. */
export async function getItem(request: Request, uid: string, format: Format) {
  // An id that cannot be a uid names no feature: 404, as for any unknown id (Part 1, 7.16). Only a well-formed
  // uid is echoed in the message; any other text is the client's, and is never reflected.
  const parsed = v.safeParse(uidParam, uid);
  const row = parsed.success ? await findProofByUid(await getDb(), parsed.output) : undefined;
  if (!row) {
    throw notFound(
      parsed.success
        ? `No feature with id ${parsed.output} in collection location-proofs`
        : "No feature with that id in collection location-proofs",
    );
  }
  const path = PATHS.item(row.uid);
  const { selfType, otherType, otherF } = alternates(format, MEDIA.geojson);
  const links: Link[] = [
    { href: linkWith(request, path, {}, ["uid"]), rel: REL.self, type: selfType, title: "This feature" },
    {
      href: linkWith(request, path, { f: otherF }, ["uid"]),
      rel: REL.alternate,
      type: otherType,
      title: "This feature",
    },
    {
      href: absoluteUrl(request, PATHS.collection),
      rel: REL.collection,
      type: MEDIA.json,
      title: "The collection",
    },
  ];
  return { ...toFeature(row), links };
}
