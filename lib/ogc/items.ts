import { hash } from "node:crypto";
import * as v from "valibot";
import { getDb } from "../../db/client.js";
import { downloadLinks } from "../exports/links.js";
import { notFound } from "../http/errors.js";
import type { Format } from "../http/format.js";
import { absoluteUrl, linkWith } from "../http/links.js";
import { requestUrl } from "../http/request-url.js";
import { bytesResponse, GEOJSON_TYPE, listBytes, stringify } from "../http/respond.js";
import { log } from "../log.js";
import { uidParam } from "../params/grammar.js";
import { type ProofPage, pageLinks, proofPage } from "../params/paging.js";
import { proximityOf } from "../params/proximity.js";
import { sharedFilter } from "../params/to-filter.js";
import type { ProofFilter, SpatialTarget } from "../proofs/filter.js";
import { pointFeatureJson, shapeFeatureJson } from "../proofs/json-sql.js";
import { findProofByUid } from "../proofs/query.js";
import type { JsonRow } from "../proofs/rows.js";
import { isDistanceSort, type SortSpec } from "../proofs/sort.js";
import { cql2Filter } from "./cql2/index.js";
import { toFeature } from "./feature.js";
import type { ItemsQuery } from "./items-params.js";
import { parseSortby } from "./sortby.js";
import {
  alternates,
  type Collection,
  type CollectionId,
  type Link,
  MEDIA,
  OGC_DEFAULT_LIMIT,
  PATHS,
  REL,
} from "./vocabulary.js";

/** What bbox and S_INTERSECTS test in a collection: its features' geometry. */
const target = (c: Collection): SpatialTarget => (c.geometry === "point" ? "point" : "bounds");

/**
 * An OGC collection holds every indexed proof, revoked ones included: a feature's `revoked` property says which,
 * and `filter=revoked=false` leaves them out. (The native list hides revoked proofs unless asked; a map client
 * reading a dataset expects all of it, and the single-feature endpoint must serve whatever items lists.)
 * bbox and datetime follow OGC API - Features Part 1: they also match features without geometry or event time
 * (bboxMatchesMissing, timesMatchMissing); a CQL2 filter keeps CQL2's rule (a predicate on a null is not true).
 */
export function itemsFilter(q: ItemsQuery, collection: Collection, sort?: SortSpec[]): ProofFilter {
  const near = proximityOf(q, { parameter: "sortby", nearest: isDistanceSort(sort) });
  return {
    includeRevoked: true,
    bboxMatchesMissing: true,
    timesMatchMissing: true,
    bboxOn: target(collection),
    ...sharedFilter(q, near),
    ...(q.datetime ? { times: [q.datetime] } : {}),
    ...(q.filter ? { where: [cql2Filter(q.filter, target(collection), q["filter-lang"])] } : {}),
  };
}

/**
 * The page GET …/items answers (lib/params/paging.ts, proofPage): its features as PostgreSQL writes them
 * (lib/proofs/json-sql.ts) for GeoJSON, or its rows as fields for the HTML view (toFeature).
 */
export async function itemsPage(
  request: Request,
  q: ItemsQuery,
  format: Format,
  collection: Collection,
): Promise<ProofPage> {
  const json =
    format === "html" ? undefined : collection.geometry === "point" ? pointFeatureJson : shapeFeatureJson;
  const sort = q.sortby ? parseSortby(q.sortby) : undefined;
  const page = await proofPage(itemsFilter(q, collection, sort), {
    limit: q.limit ?? OGC_DEFAULT_LIMIT,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
    ...(sort ? { sort } : {}),
    ...(json ? { json } : {}),
  });
  // The query string as received, for operators (and the GDAL client check, which verifies that a -where filter
  // reached the server): the shared request log line records only the path.
  log("debug", "ogc items", {
    collection: collection.id,
    query: requestUrl(request).search,
    matched: page.total,
    returned: page.rows.length,
  });
  return page;
}

/** The links of an items page: self, alternate, collection, and next/prev where the page has them. */
export function itemsLinks(
  request: Request,
  format: Format,
  collection: Collection,
  page: ProofPage,
): Link[] {
  const items = PATHS.items(collection.id);
  const { selfType, otherType, otherF } = alternates(format, MEDIA.geojson);
  const links: Link[] = [
    { href: linkWith(request, items, {}), rel: REL.self, type: selfType, title: "This page" },
    {
      href: linkWith(request, items, { f: otherF }),
      rel: REL.alternate,
      type: otherType,
      title: "This page",
    },
    collectionLink(request, collection.id),
    // Every match of this page's filter, one link per download format (lib/exports/).
    ...downloadLinks((f) => linkWith(request, items, { f }, ["limit", "offset", "cursor"])),
  ];
  const { next, prev } = pageLinks(request, items, page);
  if (next) links.push({ href: next, rel: REL.next, type: selfType, title: "Next page" });
  if (prev) links.push({ href: prev, rel: REL.prev, type: selfType, title: "Previous page" });
  return links;
}

/**
 * The GeoJSON FeatureCollection of a page, written whole from it: `type`, `timeStamp`, the counts, the features as
 * PostgreSQL wrote them (in a proximity query, each one's properties ending with its distance), copied into the one
 * buffer of the body (listBytes), and the links.
 *
 * The ETag is weak, and made of what the page is made of: every byte after `timeStamp` — the count, the features
 * and the links — so a page that has not changed revalidates with 304 although each response is stamped anew.
 */
export function featureCollectionResponse(page: ProofPage, links: Link[]): Response {
  const stamped = `{"type":"FeatureCollection","timeStamp":${JSON.stringify(new Date().toISOString())},`;
  const head = `${stamped}"numberMatched":${page.total},"numberReturned":${page.rows.length},"features":[`;
  const texts = (page.rows as JsonRow[]).map((row) => row.json);
  const bytes = listBytes(head, texts, `],"links":${stringify(links)}}`);
  // The stamp is ASCII: its length in characters is its length in bytes.
  const made = hash("sha1", bytes.subarray(stamped.length), "base64url");
  return bytesResponse(bytes, { contentType: GEOJSON_TYPE, headers: { etag: `W/"${made}"` } });
}

/** The same page as a document of features built from its rows (the HTML view's). */
export const featureCollection = (page: ProofPage, links: Link[], collection: Collection) => ({
  type: "FeatureCollection" as const,
  numberMatched: page.total,
  numberReturned: page.rows.length,
  features: page.rows.map((row) => {
    const feature = toFeature(row, collection);
    return row.distance === undefined
      ? feature
      : { ...feature, properties: { ...feature.properties, distance: row.distance } };
  }),
  links,
});

const collectionLink = (request: Request, id: CollectionId): Link => ({
  href: absoluteUrl(request, PATHS.collection(id)),
  rel: REL.collection,
  type: MEDIA.json,
  title: "The collection",
});

/** GET …/items/{uid}: one feature, revoked or not, with links self, alternate and collection. */
export async function getItem(request: Request, uid: string, format: Format, collection: Collection) {
  // An id that cannot be a uid names no feature: 404, as for any unknown id (Part 1, 7.16). Only a well-formed
  // uid is echoed in the message; any other text is the client's, and is never reflected.
  const parsed = v.safeParse(uidParam, uid);
  const row = parsed.success ? await findProofByUid(await getDb(), parsed.output) : undefined;
  if (!row) {
    throw notFound(
      parsed.success
        ? `No feature with id ${parsed.output} in collection ${collection.id}`
        : `No feature with that id in collection ${collection.id}`,
    );
  }
  const path = PATHS.item(collection.id, row.uid);
  const { selfType, otherType, otherF } = alternates(format, MEDIA.geojson);
  const links: Link[] = [
    { href: linkWith(request, path, {}, ["uid"]), rel: REL.self, type: selfType, title: "This feature" },
    {
      href: linkWith(request, path, { f: otherF }, ["uid"]),
      rel: REL.alternate,
      type: otherType,
      title: "This feature",
    },
    collectionLink(request, collection.id),
  ];
  return { ...toFeature(row, collection), links };
}
