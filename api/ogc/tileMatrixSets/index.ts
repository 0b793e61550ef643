import { FORMAT_ONLY, negotiateFormat } from "../../../lib/http/format.js";
import { parseQuery } from "../../../lib/http/query.js";
import { route } from "../../../lib/http/route.js";
import { tileMatrixSetsResource } from "../../../lib/tiles/resources.js";

// GET /api/ogc/tileMatrixSets: the tile matrix sets the tiles use (one: WebMercatorQuad).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) =>
    tileMatrixSetsResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
});
