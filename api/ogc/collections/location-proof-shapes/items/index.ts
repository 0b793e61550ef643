import { route } from "../../../../../lib/http/route.js";
import { itemsRoute } from "../../../../../lib/ogc/collection-routes.js";
import { COLLECTIONS } from "../../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proof-shapes/items: a page of GeoJSON or JSON-FG features (or the HTML map).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  ...itemsRoute(COLLECTIONS["location-proof-shapes"]),
});
