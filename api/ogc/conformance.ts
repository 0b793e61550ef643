import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { conformanceResource } from "../../lib/ogc/conformance.js";
import { FORMAT_ONLY, negotiateFormat } from "../../lib/ogc/format.js";

export { preflight as OPTIONS } from "../../lib/http/cors.js";

// GET /api/ogc/conformance: the conformance classes implemented.
export const GET = route(
  async (request) =>
    conformanceResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
