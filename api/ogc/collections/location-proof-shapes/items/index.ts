import { parseQuery } from "../../../../../lib/http/query.js";
import { route } from "../../../../../lib/http/route.js";
import { featureEncoding } from "../../../../../lib/jsonfg/negotiate.js";
import { ITEMS_PARAMS } from "../../../../../lib/ogc/items-params.js";
import { itemsResource } from "../../../../../lib/ogc/resources.js";
import { COLLECTIONS } from "../../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proof-shapes/items: a page of GeoJSON or JSON-FG features (or the HTML map).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  validators: "data",
  GET: async (request) => {
    const q = parseQuery(request, ITEMS_PARAMS);
    return itemsResource(
      request,
      q,
      featureEncoding(request, q.f, q.profile),
      COLLECTIONS["location-proof-shapes"],
    );
  },
});
