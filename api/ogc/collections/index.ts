import { parseQuery } from "../../../lib/http/query.js";
import { route } from "../../../lib/http/route.js";
import { FORMAT_ONLY, negotiateFormat } from "../../../lib/ogc/format.js";
import { collectionsResource } from "../../../lib/ogc/resources.js";

export { preflight as OPTIONS } from "../../../lib/http/cors.js";

// GET /api/ogc/collections: the collections (one: location-proofs).
export const GET = route(
  async (request) =>
    collectionsResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
  { access: "public" },
);
