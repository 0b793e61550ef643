import { FORMAT_ONLY, negotiateFormat } from "../../../lib/http/format.js";
import { parseQuery } from "../../../lib/http/query.js";
import { route } from "../../../lib/http/route.js";
import { collectionsResource } from "../../../lib/ogc/resources.js";

// GET /api/ogc/collections: the collections (one: location-proofs).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  validators: "data",
  GET: async (request) =>
    collectionsResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
});
