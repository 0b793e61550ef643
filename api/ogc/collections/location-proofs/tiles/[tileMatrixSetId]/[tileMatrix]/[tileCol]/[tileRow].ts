import { parseQuery } from "../../../../../../../../lib/http/query.js";
import { route } from "../../../../../../../../lib/http/route.js";
import { COLLECTIONS } from "../../../../../../../../lib/ogc/vocabulary.js";
import { tileResource } from "../../../../../../../../lib/tiles/resources.js";
import { TILE_PARAMS, TILE_ROUTE_PARAMS } from "../../../../../../../../lib/tiles/tile-params.js";

// GET /api/ogc/collections/location-proofs/tiles/{tileMatrixSetId}/{z}/{x}/{y} (vercel.json rewrites the path here
// with the segments): one Mapbox Vector Tile of the proofs matching the items' filters.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    const q = parseQuery(request, TILE_PARAMS, { routeParams: TILE_ROUTE_PARAMS });
    return tileResource(request, q, COLLECTIONS["location-proofs"]);
  },
});
