import { TILE_VERSION_PARAMS } from "../../../../../../../../lib/data-version/tile-version.js";
import { parseQuery } from "../../../../../../../../lib/http/query.js";
import { route } from "../../../../../../../../lib/http/route.js";
import { COLLECTIONS } from "../../../../../../../../lib/ogc/vocabulary.js";
import { tileResource } from "../../../../../../../../lib/tiles/resources.js";
import { TILE_PARAMS, TILE_ROUTE_PARAMS } from "../../../../../../../../lib/tiles/tile-params.js";

// GET /api/ogc/collections/location-proofs/tiles/{tileMatrixSetId}/{z}/{x}/{y} (vercel.json rewrites the path here
// with the segments): one Mapbox Vector Tile of the proofs matching the items' filters; `v`, the data version the
// URL was handed out at, lets caches keep it forever (lib/data-version/tile-version.ts).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  validators: "data",
  GET: async (request) => {
    const { v, ...q } = parseQuery(
      request,
      { ...TILE_PARAMS, ...TILE_VERSION_PARAMS },
      { routeParams: TILE_ROUTE_PARAMS },
    );
    return tileResource(request, q, COLLECTIONS["location-proofs"], v);
  },
});
