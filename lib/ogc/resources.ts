import { itemsDownload } from "../exports/lists.js";
import { exportFormatOf } from "../exports/negotiate.js";
import { htmlResponse } from "../html/layout.js";
import type { Format } from "../http/format.js";
import { GEOJSON_TYPE } from "../http/respond.js";
import { getCollection, getCollections } from "./collections.js";
import { collectionHtml, collectionsHtml, itemHtml, itemsHtml } from "./html/views.js";
import { featureCollection, featureCollectionResponse, getItem, itemsLinks, itemsPage } from "./items.js";
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

const GEOJSON = GEOJSON_TYPE.split(";")[0]!;

export const collectionsResource = async (request: Request, format: Format) =>
  ogcResponse(format, await getCollections(request, format), (doc) => collectionsHtml(doc, hrefFor(request)));

export const collectionResource = async (request: Request, format: Format, collection: Collection) =>
  ogcResponse(format, await getCollection(request, format, collection), (doc) =>
    collectionHtml(doc, hrefFor(request)),
  );

/**
 * GET …/items: one page (itemsPage), written whole as GeoJSON from its rows as PostgreSQL wrote them, or as the HTML
 * view from its rows as fields.
 */
export const itemsResource = async (
  request: Request,
  q: ItemsQuery,
  format: Format,
  collection: Collection,
) => {
  // A download format (f or Accept): every match, streamed (lib/exports/).
  const download = exportFormatOf(request, q.f);
  if (download) return itemsDownload(request, q, download, collection);
  const page = await itemsPage(request, q, format, collection);
  const links = itemsLinks(request, format, collection, page);
  if (format !== "html") return featureCollectionResponse(page, links);
  const doc = featureCollection(page, links, collection);
  return htmlResponse(
    itemsHtml(doc, request, hrefFor(request), collection, { offset: page.start, limit: page.limit }),
  );
};

export const itemResource = async (request: Request, uid: string, format: Format, collection: Collection) =>
  ogcResponse(
    format,
    await getItem(request, uid, format, collection),
    (doc) => itemHtml(doc, hrefFor(request), collection),
    GEOJSON,
  );
