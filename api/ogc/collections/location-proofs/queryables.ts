import { parseQuery } from "../../../../lib/http/query.js";
import { route } from "../../../../lib/http/route.js";
import { negotiateFormat } from "../../../../lib/ogc/format.js";
import { FORMAT_ONLY } from "../../../../lib/ogc/items-params.js";
import { queryablesResource } from "../../../../lib/ogc/resources.js";

export { preflight as OPTIONS } from "../../../../lib/http/cors.js";

// GET /api/ogc/collections/location-proofs/queryables: JSON Schema of what filter may name.
export const GET = route(
  async (request) =>
    queryablesResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
