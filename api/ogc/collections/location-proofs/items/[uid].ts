import { parseQuery, routeParam } from "../../../../../lib/http/query.js";
import { route } from "../../../../../lib/http/route.js";
import { FORMAT_ONLY, negotiateFormat } from "../../../../../lib/ogc/format.js";
import { itemResource } from "../../../../../lib/ogc/resources.js";

export { preflight as OPTIONS } from "../../../../../lib/http/cors.js";

// GET /api/ogc/collections/location-proofs/items/{uid} (vercel.json rewrites the path here with ?uid=).
export const GET = route(
  async (request) => {
    const { f } = parseQuery(request, FORMAT_ONLY, { routeParams: ["uid"] });
    return itemResource(request, routeParam(request, "uid"), negotiateFormat(request, f));
  },
  { access: "public" },
);
