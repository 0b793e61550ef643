import { parseQuery } from "../../../../../lib/http/query.js";
import { route } from "../../../../../lib/http/route.js";
import { stylesResource } from "../../../../../lib/maps/resources.js";
import { COLLECTIONS } from "../../../../../lib/ogc/vocabulary.js";
import { TILE_PARAMS } from "../../../../../lib/tiles/tile-params.js";

// GET /api/ogc/collections/location-proofs/styles: the collection's styles and its default (OGC API - Styles core).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, TILE_PARAMS);
    return stylesResource(request, COLLECTIONS["location-proofs"]);
  },
});
