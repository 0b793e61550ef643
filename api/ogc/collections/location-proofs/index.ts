import { FORMAT_ONLY, negotiateFormat } from "../../../../lib/http/format.js";
import { parseQuery } from "../../../../lib/http/query.js";
import { route } from "../../../../lib/http/route.js";
import { collectionResource } from "../../../../lib/ogc/resources.js";
import { COLLECTIONS } from "../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proofs: metadata with the extent computed from the data.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  validators: "data",
  GET: async (request) => {
    const format = negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f);
    return collectionResource(request, format, COLLECTIONS["location-proofs"]);
  },
});
