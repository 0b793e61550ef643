import { parseQuery } from "../../../../../lib/http/query.js";
import { route } from "../../../../../lib/http/route.js";
import { negotiateFormat } from "../../../../../lib/ogc/format.js";
import { ITEMS_PARAMS } from "../../../../../lib/ogc/items-params.js";
import { itemsResource } from "../../../../../lib/ogc/resources.js";

export { preflight as OPTIONS } from "../../../../../lib/http/cors.js";

// GET /api/ogc/collections/location-proofs/items: a page of GeoJSON features (or the HTML map).
export const GET = route(
  async (request) => {
    const q = parseQuery(request, ITEMS_PARAMS);
    return itemsResource(request, q, negotiateFormat(request, q.f));
  },
  { access: "public" },
);
