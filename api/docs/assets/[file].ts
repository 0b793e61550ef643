import { docsAssetResponse } from "../../../lib/docs/assets.js";
import { parseQuery, routeParam } from "../../../lib/http/query.js";
import { route } from "../../../lib/http/route.js";

// GET /api/docs/assets/{file}: Swagger UI (from our npm dependency) and its start-up script, for /docs.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, {}, { routeParams: ["file"] });
    return docsAssetResponse(routeParam(request, "file"));
  },
});
