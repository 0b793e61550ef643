import { FORMAT_ONLY, negotiateFormat } from "../../lib/http/format.js";
import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { apiResource } from "../../lib/ogc/openapi.js";

// GET /api/ogc/api: the OpenAPI 3.0 definition (service-desc), or its HTML rendering (service-doc).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => apiResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
});
