import { parseQuery } from "../../../../../lib/http/query.js";
import { route } from "../../../../../lib/http/route.js";
import { styleResource } from "../../../../../lib/maps/resources.js";
import { COLLECTIONS } from "../../../../../lib/ogc/vocabulary.js";
import { TILE_PARAMS } from "../../../../../lib/tiles/tile-params.js";

// GET /api/ogc/collections/location-proofs/styles/{styleId} (vercel.json rewrites the path here with ?styleId=): the
// style sheet, application/vnd.mapbox.style+json.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, TILE_PARAMS, { routeParams: ["styleId"] });
    return styleResource(request, COLLECTIONS["location-proofs"]);
  },
});
