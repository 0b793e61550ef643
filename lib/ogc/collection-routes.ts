import { FORMAT_ONLY, negotiateFormat } from "../http/format.js";
import { parseQuery, routeParam } from "../http/query.js";
import type { RouteDeclaration } from "../http/route.js";
import { featureEncoding } from "../jsonfg/negotiate.js";
import { ITEM_PARAMS, ITEMS_PARAMS } from "./items-params.js";
import { collectionResource, itemResource, itemsResource } from "./resources.js";
import type { Collection } from "./vocabulary.js";

/**
 * The routes every collection serves alike (its metadata, its items, one item): one declaration per kind of route,
 * so the collections' route files cannot drift apart; each file names only its collection.
 */
export const collectionRoute = (collection: Collection): RouteDeclaration => ({
  access: "public",
  validators: "data",
  GET: async (request) => {
    const format = negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f);
    return collectionResource(request, format, collection);
  },
});

/** A page of GeoJSON or JSON-FG features (or the HTML map). */
export const itemsRoute = (collection: Collection): RouteDeclaration => ({
  access: "public",
  validators: "data",
  carriesVersion: true,
  GET: async (request) => {
    const q = parseQuery(request, ITEMS_PARAMS);
    return itemsResource(request, q, featureEncoding(request, q.f, q.profile), collection);
  },
});

/** One feature by its uid (vercel.json rewrites the path to the route with ?uid=). */
export const itemRoute = (collection: Collection): RouteDeclaration => ({
  access: "public",
  validators: "data",
  GET: async (request) => {
    const q = parseQuery(request, ITEM_PARAMS, { routeParams: ["uid"] });
    const encoding = featureEncoding(request, q.f, q.profile);
    return itemResource(request, routeParam(request, "uid"), encoding, collection, q.crs);
  },
});
