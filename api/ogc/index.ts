import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { FORMAT_ONLY, negotiateFormat } from "../../lib/ogc/format.js";
import { landingResource } from "../../lib/ogc/landing.js";

export { preflight as OPTIONS } from "../../lib/http/cors.js";

// GET /api/ogc: the landing page (JSON or HTML).
export const GET = route(
  async (request) => landingResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
