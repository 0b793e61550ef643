import { FORMAT_ONLY, negotiateFormat } from "../../../../lib/http/format.js";
import { parseQuery } from "../../../../lib/http/query.js";
import { route } from "../../../../lib/http/route.js";
import { schemaResource } from "../../../../lib/ogc/schema.js";
import { COLLECTIONS } from "../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proofs/schema: JSON Schema of the features (Part 5).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    const format = negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f);
    return schemaResource(request, format, COLLECTIONS["location-proofs"]);
  },
});
