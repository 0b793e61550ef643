import { absoluteUrl } from "../http/links.js";
import { GEOJSON_TYPE } from "../http/respond.js";
import { getCollection, getCollections } from "./collections.js";
import { conformanceDocument } from "./conformance.js";
import type { Format } from "./format.js";
import {
  apiHtml,
  collectionHtml,
  collectionsHtml,
  conformanceHtml,
  itemHtml,
  itemsHtml,
  landingHtml,
  queryablesHtml,
} from "./html/views.js";
import { getItem, getItems } from "./items.js";
import type { ItemsQuery } from "./items-params.js";
import { landingDocument } from "./landing.js";
import { openApiDocument } from "./openapi.js";
import { queryablesDocument } from "./queryables.js";
import { ogcResponse } from "./respond.js";
import { MEDIA } from "./vocabulary.js";

/**
 * Each OGC resource as a response in the negotiated format: the one call a route file makes after parsing its
 * query. JSON and HTML come from the same document, so they cannot disagree.
 */

const hrefFor = (request: Request) => (path: string) => absoluteUrl(request, path);
const GEOJSON = GEOJSON_TYPE.split(";")[0]!;

export const landingResource = (request: Request, format: Format) =>
  ogcResponse(format, landingDocument(request, format), landingHtml);

export const conformanceResource = (request: Request, format: Format) =>
  ogcResponse(format, conformanceDocument(), (doc) => conformanceHtml(doc, hrefFor(request)));

export const apiResource = (request: Request, format: Format) =>
  ogcResponse(
    format,
    openApiDocument(request),
    (doc) => apiHtml(doc as never, hrefFor(request)),
    MEDIA.openapi,
  );

export const collectionsResource = async (request: Request, format: Format) =>
  ogcResponse(format, await getCollections(request, format), (doc) => collectionsHtml(doc, hrefFor(request)));

export const collectionResource = async (request: Request, format: Format) =>
  ogcResponse(format, await getCollection(request, format), (doc) => collectionHtml(doc, hrefFor(request)));

export const queryablesResource = (request: Request, format: Format) =>
  ogcResponse(
    format,
    queryablesDocument(hrefFor(request)),
    (doc) => queryablesHtml(doc as Parameters<typeof queryablesHtml>[0], hrefFor(request)),
    MEDIA.schema,
  );

export const itemsResource = async (request: Request, q: ItemsQuery, format: Format) =>
  ogcResponse(
    format,
    await getItems(request, q, format),
    (doc) => itemsHtml(doc, hrefFor(request)),
    GEOJSON,
    ["timeStamp"],
  );

export const itemResource = async (request: Request, uid: string, format: Format) =>
  ogcResponse(format, await getItem(request, uid, format), (doc) => itemHtml(doc, hrefFor(request)), GEOJSON);
