import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { negotiateFormat } from "../../lib/ogc/format.js";
import { FORMAT_ONLY } from "../../lib/ogc/items-params.js";
import { landingResource } from "../../lib/ogc/resources.js";

export { preflight as OPTIONS } from "../../lib/http/cors.js";

// GET /api/ogc: the landing page (JSON or HTML).
export const GET = route(
  async (request) => landingResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
