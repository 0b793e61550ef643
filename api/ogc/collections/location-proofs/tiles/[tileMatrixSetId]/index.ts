import { negotiateFormat } from "../../../../../../lib/http/format.js";
import { parseQuery } from "../../../../../../lib/http/query.js";
import { route } from "../../../../../../lib/http/route.js";
import { COLLECTIONS } from "../../../../../../lib/ogc/vocabulary.js";
import { tilesetResource } from "../../../../../../lib/tiles/resources.js";
import { TILESET_PARAMS } from "../../../../../../lib/tiles/tile-params.js";

// GET /api/ogc/collections/location-proofs/tiles/{tileMatrixSetId} (vercel.json rewrites the path here with the id):
// the tileset metadata with the tile URL template.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  validators: "data",
  GET: async (request) => {
    const { f } = parseQuery(request, TILESET_PARAMS, { routeParams: ["tileMatrixSetId"] });
    return tilesetResource(request, negotiateFormat(request, f), COLLECTIONS["location-proofs"]);
  },
});
