import { FORMAT_ONLY, negotiateFormat } from "../../../../lib/http/format.js";
import { parseQuery } from "../../../../lib/http/query.js";
import { route } from "../../../../lib/http/route.js";
import { sortablesResource } from "../../../../lib/ogc/schema.js";
import { COLLECTIONS } from "../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proof-shapes/sortables: what sortby may name (Part 5).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    const format = negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f);
    return sortablesResource(request, format, COLLECTIONS["location-proof-shapes"]);
  },
});
