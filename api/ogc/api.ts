import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { negotiateFormat } from "../../lib/ogc/format.js";
import { FORMAT_ONLY } from "../../lib/ogc/items-params.js";
import { apiResource } from "../../lib/ogc/resources.js";

export { preflight as OPTIONS } from "../../lib/http/cors.js";

// GET /api/ogc/api: the OpenAPI 3.0 definition (service-desc), or its HTML rendering (service-doc).
export const GET = route(
  async (request) => apiResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
