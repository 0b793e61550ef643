import { parseQuery } from "../../../../lib/http/query.js";
import { route } from "../../../../lib/http/route.js";
import { FORMAT_ONLY, negotiateFormat } from "../../../../lib/ogc/format.js";
import { queryablesResource } from "../../../../lib/ogc/queryables.js";

export { preflight as OPTIONS } from "../../../../lib/http/cors.js";

// GET /api/ogc/collections/location-proofs/queryables: JSON Schema of what filter may name.
export const GET = route(
  async (request) =>
    queryablesResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
