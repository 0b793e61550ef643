import { FORMAT_ONLY, negotiateFormat } from "../../../lib/http/format.js";
import { parseQuery } from "../../../lib/http/query.js";
import { route } from "../../../lib/http/route.js";
import { tileMatrixSetResource } from "../../../lib/tiles/resources.js";

// GET /api/ogc/tileMatrixSets/{tileMatrixSetId} (vercel.json rewrites the path here with the id): its definition.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    const { f } = parseQuery(request, FORMAT_ONLY, { routeParams: ["tileMatrixSetId"] });
    return tileMatrixSetResource(request, negotiateFormat(request, f));
  },
});
