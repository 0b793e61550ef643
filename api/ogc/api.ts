import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { FORMAT_ONLY, negotiateFormat } from "../../lib/ogc/format.js";
import { apiResource } from "../../lib/ogc/openapi.js";

export { preflight as OPTIONS } from "../../lib/http/cors.js";

// GET /api/ogc/api: the OpenAPI 3.0 definition (service-desc), or its HTML rendering (service-doc).
export const GET = route(
  async (request) => apiResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
