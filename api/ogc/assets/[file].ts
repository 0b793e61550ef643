import { parseQuery, routeParam } from "../../../lib/http/query.js";
import { route } from "../../../lib/http/route.js";
import { assetResponse } from "../../../lib/ogc/asset-files.js";

// GET /api/ogc/assets/{file}: Leaflet (from our npm dependency) and our own CSS/JS for the HTML pages.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, {}, { routeParams: ["file"] });
    return assetResponse(routeParam(request, "file"));
  },
});
