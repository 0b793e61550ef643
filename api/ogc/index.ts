import { FORMAT_ONLY, negotiateFormat } from "../../lib/http/format.js";
import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { landingResource } from "../../lib/ogc/landing.js";

// GET /api/ogc: the landing page (JSON or HTML).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) =>
    landingResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
});
