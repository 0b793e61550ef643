import { CRS84_SYSTEM, type CrsSystem } from "../crs/systems.js";
import { ensureDataVersion } from "../data-version/version.js";
import { itemsDownload } from "../exports/lists.js";
import { exportFormatOf } from "../exports/negotiate.js";
import { htmlResponse } from "../html/layout.js";
import type { Format } from "../http/format.js";
import { GEOJSON_TYPE, json } from "../http/respond.js";
import type { FeatureEncoding } from "../jsonfg/negotiate.js";
import { getCollection, getCollections } from "./collections.js";
import { collectionHtml, collectionsHtml, itemHtml, itemsHtml } from "./html/views.js";
import {
  featureCollection,
  featureCollectionResponse,
  featureHeaders,
  getItem,
  itemsLinks,
  itemsPage,
} from "./items.js";
import type { ItemsQuery } from "./items-params.js";
import { hrefFor, ogcResponse } from "./respond.js";
import type { Collection } from "./vocabulary.js";

/**
 * Each OGC resource as a response in the negotiated format: the one call a route file makes after parsing its
 * query. JSON and HTML come from the same document, so they cannot disagree. The metadata resources live next to
 * their documents (landing, conformance, openapi, queryables) so their routes do not load the data layer; they are
 * re-exported here.
 */

export { conformanceResource } from "./conformance.js";
export { landingResource } from "./landing.js";
export { apiResource } from "./openapi.js";
export { queryablesResource } from "./queryables.js";

export const collectionsResource = async (request: Request, format: Format) =>
  ogcResponse(format, await getCollections(request, format), (doc) => collectionsHtml(doc, hrefFor(request)));

export const collectionResource = async (request: Request, format: Format, collection: Collection) =>
  ogcResponse(format, await getCollection(request, format, collection), (doc) =>
    collectionHtml(doc, hrefFor(request)),
  );

/**
 * GET …/items: one page (itemsPage), written whole as GeoJSON or JSON-FG from its rows as PostgreSQL wrote them (in
 * the coordinate system `crs` asks for), or as the HTML view from its rows as fields.
 */
export const itemsResource = async (
  request: Request,
  q: ItemsQuery,
  encoding: FeatureEncoding,
  collection: Collection,
) => {
  // A download format (f or Accept): every match, streamed (lib/exports/).
  const download = exportFormatOf(request, q.f);
  // The JSON page carries the request's data version in its statement; a download and the HTML page (its map's tile
  // URLs name the version) read it first (lib/data-version/version.ts).
  if (download || encoding.format === "html") await ensureDataVersion();
  if (download) return itemsDownload(request, q, download, collection);
  const page = await itemsPage(request, q, encoding, collection);
  const links = itemsLinks(request, encoding, collection, page);
  if (encoding.format !== "html") {
    return featureCollectionResponse(page, links, { jsonfg: encoding.jsonfg, crs: q.crs ?? CRS84_SYSTEM });
  }
  const doc = featureCollection(page, links);
  return htmlResponse(
    itemsHtml(doc, request, hrefFor(request), collection, { offset: page.start, limit: page.limit }),
  );
};

/** GET …/items/{uid}: the feature as GeoJSON or JSON-FG (in the coordinate system asked for), or its HTML page. */
export const itemResource = async (
  request: Request,
  uid: string,
  encoding: FeatureEncoding,
  collection: Collection,
  crs: CrsSystem = CRS84_SYSTEM,
) => {
  const doc = await getItem(request, uid, encoding, collection, crs);
  if (encoding.format === "html")
    return htmlResponse(itemHtml(doc as Parameters<typeof itemHtml>[0], hrefFor(request), collection));
  return json(doc, {
    contentType: GEOJSON_TYPE,
    headers: featureHeaders({ jsonfg: encoding.jsonfg, crs }),
  });
};
