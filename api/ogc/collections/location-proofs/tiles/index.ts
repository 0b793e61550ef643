import { negotiateFormat } from "../../../../../lib/http/format.js";
import { parseQuery } from "../../../../../lib/http/query.js";
import { route } from "../../../../../lib/http/route.js";
import { COLLECTIONS } from "../../../../../lib/ogc/vocabulary.js";
import { tilesetsResource } from "../../../../../lib/tiles/resources.js";
import { TILESET_PARAMS } from "../../../../../lib/tiles/tile-params.js";

// GET /api/ogc/collections/location-proofs/tiles: the tilesets (one: WebMercatorQuad, vector tiles).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  validators: "data",
  GET: async (request) => {
    const format = negotiateFormat(request, parseQuery(request, TILESET_PARAMS).f);
    return tilesetsResource(request, format, COLLECTIONS["location-proofs"]);
  },
});
