import { hash } from "node:crypto";
import * as v from "valibot";
import { getDb } from "../../db/client.js";
import { featureTextIn, placeTextIn } from "../crs/feature-text.js";
import { bboxInCrs84 } from "../crs/params.js";
import { CRS84_SYSTEM, type CrsSystem } from "../crs/systems.js";
import { envelope, geometryTo } from "../crs/transform.js";
import { downloadLinks } from "../exports/links.js";
import { notFound } from "../http/errors.js";
import { absoluteUrl, linkWith } from "../http/links.js";
import { requestUrl } from "../http/request-url.js";
import { bytesResponse, GEOJSON_TYPE, listBytes, stringify } from "../http/respond.js";
import type { FeatureEncoding } from "../jsonfg/negotiate.js";
import { JSONFG_CORE, profileLink } from "../jsonfg/vocabulary.js";
import { log } from "../log.js";
import { uidParam } from "../params/grammar.js";
import { type ProofPage, pageLinks, proofPage } from "../params/paging.js";
import { proximityOf } from "../params/proximity.js";
import { sharedFilter } from "../params/to-filter.js";
import type { Bbox, ProofFilter, SpatialTarget } from "../proofs/filter.js";
import { featureListJson, type RowJson } from "../proofs/json-sql.js";
import { findRecordByUid } from "../proofs/query.js";
import type { JsonRow } from "../proofs/rows.js";
import { isDistanceSort, type SortSpec } from "../proofs/sort.js";
import { cql2Filter } from "./cql2/index.js";
import { toFeature, toJsonFgFeature } from "./feature.js";
import type { ItemsQuery } from "./items-params.js";
import { queryableParamsWhere } from "./queryable-filter.js";
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

/** An items query with its bbox as the CRS84 box it tests (itemsBbox). */
export type FilterQuery = Omit<Partial<ItemsQuery>, "bbox"> & { bbox?: Bbox | undefined };

/**
 * The bbox of an items query as the CRS84 box the filter tests: given in `bbox-crs` (lib/crs/params.ts), CRS84 by
 * default. (A supported bbox-crs without a bbox is accepted, as a client may send it with every request.)
 */
export function itemsBbox(q: Pick<ItemsQuery, "bbox" | "bbox-crs">): Bbox | undefined {
  return q.bbox ? bboxInCrs84(q.bbox, q["bbox-crs"]) : undefined;
}

/**
 * An OGC collection holds every indexed proof, revoked ones included: a feature's `revoked` property says which,
 * and `filter=revoked=false` leaves them out. (The native list hides revoked proofs unless asked; a map client
 * reading a dataset expects all of it, and the single-feature endpoint must serve whatever items lists.)
 * bbox and datetime follow OGC API - Features Part 1: they also match features without geometry or event time
 * (bboxMatchesMissing, timesMatchMissing); a CQL2 filter keeps CQL2's rule (a predicate on a null is not true), and
 * so do the queryables given as parameters (`?revoked=false`: lib/ogc/queryable-filter.ts), which are CQL2 too.
 */
export function itemsFilter(q: FilterQuery, collection: Collection, sort?: SortSpec[]): ProofFilter {
  const near = proximityOf(q, { parameter: "sortby", nearest: isDistanceSort(sort) });
  const where = [
    ...(q.filter ? [cql2Filter(q.filter, target(collection), q["filter-lang"], q["filter-crs"])] : []),
    ...[queryableParamsWhere(q)].filter((x) => x !== undefined),
  ];
  return {
    includeRevoked: true,
    bboxMatchesMissing: true,
    timesMatchMissing: true,
    bboxOn: target(collection),
    ...sharedFilter(q, near),
    ...(q.datetime ? { times: [q.datetime] } : {}),
    ...(where.length ? { where } : {}),
  };
}

/**
 * The page GET …/items answers (lib/params/paging.ts, proofPage): its features as PostgreSQL writes them
 * (lib/proofs/json-sql.ts), for GeoJSON, JSON-FG and the HTML view alike.
 */
export async function itemsPage(
  request: Request,
  q: ItemsQuery,
  encoding: FeatureEncoding,
  collection: Collection,
): Promise<ProofPage> {
  // The HTML view reads the same features (its values within the same bounds).
  const json = listFeatureJson(collection, encoding.format !== "html" && encoding.jsonfg);
  const sort = q.sortby ? parseSortby(q.sortby) : undefined;
  const page = await proofPage(itemsFilter({ ...q, bbox: itemsBbox(q) }, collection, sort), {
    limit: q.limit ?? OGC_DEFAULT_LIMIT,
    ...(q.offset !== undefined ? { offset: q.offset } : {}),
    ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
    ...(sort ? { sort } : {}),
    json,
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

/**
 * A feature as an items page writes it (lib/proofs/json-sql.ts, featureListJson): its values within the list's
 * bounds (lib/bounds/limits.ts), a feature with a value cut pointing at itself by id. One per collection and encoding.
 */
const LIST_JSON = new Map<string, RowJson>();
function listFeatureJson(collection: Collection, jsonfg: boolean): RowJson {
  const key = `${collection.id}:${jsonfg}`;
  let json = LIST_JSON.get(key);
  if (!json) {
    const kind = collection.geometry === "point" ? "point" : "shape";
    json = featureListJson(kind, jsonfg, `${PATHS.item(collection.id, "")}`);
    LIST_JSON.set(key, json);
  }
  return json;
}

/** The links of an items page: self, alternate, collection, and next/prev where the page has them. */
export function itemsLinks(
  request: Request,
  encoding: FeatureEncoding,
  collection: Collection,
  page: ProofPage,
): Link[] {
  const items = PATHS.items(collection.id);
  const { selfType, otherType, otherF } = alternates(encoding.format, MEDIA.geojson);
  const links: Link[] = [
    { href: linkWith(request, items, {}), rel: REL.self, type: selfType, title: "This page" },
    {
      href: linkWith(request, items, { f: otherF }, ["profile"]),
      rel: REL.alternate,
      type: otherType,
      title: "This page",
    },
    ...formatAlternates(request, items, encoding),
    collectionLink(request, collection.id),
    // Every match of this page's filter, one link per download format (lib/exports/).
    ...downloadLinks((f) => linkWith(request, items, { f }, ["limit", "offset", "cursor"])),
  ];
  const { next, prev } = pageLinks(request, items, page);
  if (next) links.push({ href: next, rel: REL.next, type: selfType, title: "Next page" });
  if (prev) links.push({ href: prev, rel: REL.prev, type: selfType, title: "Previous page" });
  return links;
}

/** The other JSON encoding of a feature resource: JSON-FG from GeoJSON, GeoJSON from JSON-FG (and from HTML both). */
function formatAlternates(
  request: Request,
  path: string,
  encoding: FeatureEncoding,
  drop: string[] = [],
): Link[] {
  const geojson: Link = {
    href: linkWith(request, path, { f: "json" }, ["profile", ...drop]),
    rel: REL.alternate,
    type: MEDIA.geojson,
    title: "GeoJSON",
  };
  const jsonfg: Link = {
    href: linkWith(request, path, { f: "jsonfg" }, ["profile", ...drop]),
    rel: REL.alternate,
    type: MEDIA.geojson,
    title: "JSON-FG",
  };
  if (encoding.format === "html") return [jsonfg];
  return [encoding.jsonfg ? geojson : jsonfg];
}

/** How a page's features are written: JSON-FG or GeoJSON, and the coordinate system asked for (default CRS84). */
export type FeatureWriting = { jsonfg: boolean; crs: CrsSystem };

/**
 * The headers of a feature resource in JSON: Content-Crs (Part 2) and the GeoJSON profile it follows (JSON-FG,
 * "GeoJSON Profiles"): JSON-FG with a CRS84 fallback geometry beside `place` is "jsonfg-plus".
 */
export function featureHeaders(w: FeatureWriting): Record<string, string> {
  const place = w.jsonfg && w.crs !== CRS84_SYSTEM;
  return {
    "content-crs": `<${w.crs.uri}>`,
    link: profileLink(!w.jsonfg ? "rfc7946" : place ? "jsonfg-plus" : "jsonfg"),
  };
}

/**
 * The GeoJSON FeatureCollection of a page, written whole from it: `type`, `timeStamp`, the counts, the features as
 * PostgreSQL wrote them (in a proximity query, each one's properties ending with its distance), copied into the one
 * buffer of the body (listBytes), and the links. In another coordinate system each feature's geometry is rewritten
 * (lib/crs/feature-text.ts); as JSON-FG the document names its conformance class, and, when `place` is filled, the
 * system of `place` (coordRefSys), while `geometry` stays CRS84.
 *
 * The ETag is weak, and made of what the page is made of: every byte after `timeStamp` — the count, the features
 * and the links — so a page that has not changed revalidates with 304 although each response is stamped anew.
 */
export function featureCollectionResponse(
  page: ProofPage,
  links: Link[],
  w: FeatureWriting = { jsonfg: false, crs: CRS84_SYSTEM },
): Response {
  const stamped = `{"type":"FeatureCollection","timeStamp":${JSON.stringify(new Date().toISOString())},`;
  const place = w.jsonfg && w.crs !== CRS84_SYSTEM;
  const fg = w.jsonfg
    ? `"conformsTo":${JSON.stringify([JSONFG_CORE])},${place ? `"coordRefSys":${JSON.stringify(w.crs.uri)},` : ""}`
    : "";
  const head = `${stamped}${fg}"numberMatched":${page.total},"numberReturned":${page.rows.length},"features":[`;
  const rows = page.rows as JsonRow[];
  const texts =
    w.crs === CRS84_SYSTEM
      ? rows.map((row) => row.json)
      : rows.map((row) => (w.jsonfg ? placeTextIn(row.json, w.crs) : featureTextIn(row.json, w.crs)));
  const bytes = listBytes(head, texts, `],"links":${stringify(links)}}`);
  // The stamp is ASCII: its length in characters is its length in bytes.
  const made = hash("sha1", bytes.subarray(stamped.length), "base64url");
  return bytesResponse(bytes, {
    contentType: GEOJSON_TYPE,
    headers: { etag: `W/"${made}"`, ...featureHeaders(w) },
  });
}

/** The same page as a document of its features, as PostgreSQL wrote them (the HTML view's). */
export const featureCollection = (page: ProofPage, links: Link[]) => ({
  type: "FeatureCollection" as const,
  numberMatched: page.total,
  numberReturned: page.rows.length,
  features: (page.rows as JsonRow[]).map(
    (row) => JSON.parse(row.json) as ReturnType<typeof toFeature> & { properties: Record<string, unknown> },
  ),
  links,
});

const collectionLink = (request: Request, id: CollectionId): Link => ({
  href: absoluteUrl(request, PATHS.collection(id)),
  rel: REL.collection,
  type: MEDIA.json,
  title: "The collection",
});

/** GET …/items/{uid}: one feature, revoked or not, with links self, alternate and collection. */
export async function getItem(
  request: Request,
  uid: string,
  encoding: FeatureEncoding,
  collection: Collection,
  crs: CrsSystem = CRS84_SYSTEM,
) {
  // An id that cannot be a uid names no feature: 404, as for any unknown id (Part 1, 7.16). Only a well-formed
  // uid is echoed in the message; any other text is the client's, and is never reflected.
  const parsed = v.safeParse(uidParam, uid);
  const row = parsed.success ? await findRecordByUid(await getDb(), parsed.output) : undefined;
  if (!row) {
    throw notFound(
      parsed.success
        ? `No feature with id ${parsed.output} in collection ${collection.id}`
        : `No feature with that id in collection ${collection.id}`,
    );
  }
  const path = PATHS.item(collection.id, row.uid);
  const { selfType, otherType, otherF } = alternates(encoding.format, MEDIA.geojson);
  const links: Link[] = [
    { href: linkWith(request, path, {}, ["uid"]), rel: REL.self, type: selfType, title: "This feature" },
    {
      href: linkWith(request, path, { f: otherF }, ["uid", "profile"]),
      rel: REL.alternate,
      type: otherType,
      title: "This feature",
    },
    ...formatAlternates(request, path, encoding, ["uid"]),
    collectionLink(request, collection.id),
  ];
  if (encoding.format === "html") return { ...toFeature(row, collection), links };
  if (encoding.jsonfg) {
    const feature = toJsonFgFeature(row, collection);
    const place = crs === CRS84_SYSTEM ? null : geometryTo(feature.geometry, crs);
    return {
      conformsTo: [JSONFG_CORE],
      ...(crs === CRS84_SYSTEM ? {} : { coordRefSys: crs.uri }),
      ...feature,
      place,
      links,
    };
  }
  const feature = toFeature(row, collection);
  if (crs === CRS84_SYSTEM) return { ...feature, links };
  const geometry = geometryTo(feature.geometry, crs);
  const box = geometry && "bbox" in feature ? envelope(geometry) : undefined;
  const { bbox: _, ...rest } = feature as typeof feature & { bbox?: unknown };
  return { ...rest, geometry, ...(box ? { bbox: box } : {}), properties: feature.properties, links };
}
