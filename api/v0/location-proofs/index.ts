import { parseQuery } from "../../../lib/http/query.js";
import { route } from "../../../lib/http/route.js";
import { LIST_PARAMS } from "../../../lib/v0/list-params.js";
import { listResource } from "../../../lib/v0/location-proofs.js";

// GET /api/v0/location-proofs: JSON, or the same page as HTML for a browser (Accept, or f=html).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => listResource(request, parseQuery(request, LIST_PARAMS)),
});
