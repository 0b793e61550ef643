import { route } from "../../../../../lib/http/route.js";
import { itemRoute } from "../../../../../lib/ogc/collection-routes.js";
import { COLLECTIONS } from "../../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proof-shapes/items/{uid} (vercel.json rewrites the path here with ?uid=).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  ...itemRoute(COLLECTIONS["location-proof-shapes"]),
});
