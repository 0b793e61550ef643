import { parseQuery } from "../../../../../../lib/http/query.js";
import { route } from "../../../../../../lib/http/route.js";
import { tileJsonResource } from "../../../../../../lib/maps/resources.js";
import { COLLECTIONS } from "../../../../../../lib/ogc/vocabulary.js";
import { TILE_PARAMS } from "../../../../../../lib/tiles/tile-params.js";

// GET /api/ogc/collections/location-proofs/tiles/{tileMatrixSetId}/tilejson (vercel.json rewrites the path here with
// the id): the tileset as TileJSON 3.0.0, for web maps.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  validators: "data",
  GET: async (request) => {
    parseQuery(request, TILE_PARAMS, { routeParams: ["tileMatrixSetId"] });
    return tileJsonResource(request, COLLECTIONS["location-proofs"]);
  },
});
