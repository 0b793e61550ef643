import { parseQuery, routeParam } from "../../../../../lib/http/query.js";
import { route } from "../../../../../lib/http/route.js";
import { featureEncoding } from "../../../../../lib/jsonfg/negotiate.js";
import { ITEM_PARAMS } from "../../../../../lib/ogc/items-params.js";
import { itemResource } from "../../../../../lib/ogc/resources.js";
import { COLLECTIONS } from "../../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proof-shapes/items/{uid} (vercel.json rewrites the path here with ?uid=).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  validators: "data",
  GET: async (request) => {
    const q = parseQuery(request, ITEM_PARAMS, { routeParams: ["uid"] });
    const encoding = featureEncoding(request, q.f, q.profile);
    return itemResource(
      request,
      routeParam(request, "uid"),
      encoding,
      COLLECTIONS["location-proof-shapes"],
      q.crs,
    );
  },
});
