import { FORMAT_ONLY, negotiateFormat } from "../../../../../lib/http/format.js";
import { parseQuery, routeParam } from "../../../../../lib/http/query.js";
import { route } from "../../../../../lib/http/route.js";
import { itemResource } from "../../../../../lib/ogc/resources.js";
import { COLLECTIONS } from "../../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proofs/items/{uid} (vercel.json rewrites the path here with ?uid=).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    const { f } = parseQuery(request, FORMAT_ONLY, { routeParams: ["uid"] });
    const format = negotiateFormat(request, f);
    return itemResource(request, routeParam(request, "uid"), format, COLLECTIONS["location-proofs"]);
  },
});
