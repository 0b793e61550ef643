import { FORMAT_ONLY, negotiateFormat } from "../../../../lib/http/format.js";
import { parseQuery } from "../../../../lib/http/query.js";
import { route } from "../../../../lib/http/route.js";
import { queryablesResource } from "../../../../lib/ogc/queryables.js";
import { COLLECTIONS } from "../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proofs/queryables: JSON Schema of what filter may name.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    const format = negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f);
    return queryablesResource(request, format, COLLECTIONS["location-proofs"]);
  },
});
