import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { negotiateFormat } from "../../lib/ogc/format.js";
import { FORMAT_ONLY } from "../../lib/ogc/items-params.js";
import { conformanceResource } from "../../lib/ogc/resources.js";

export { preflight as OPTIONS } from "../../lib/http/cors.js";

// GET /api/ogc/conformance: the conformance classes implemented.
export const GET = route(
  async (request) =>
    conformanceResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
