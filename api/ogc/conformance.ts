import { FORMAT_ONLY, negotiateFormat } from "../../lib/http/format.js";
import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";
import { conformanceResource } from "../../lib/ogc/conformance.js";

// GET /api/ogc/conformance: the conformance classes implemented.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) =>
    conformanceResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
});
