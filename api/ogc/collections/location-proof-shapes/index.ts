import { route } from "../../../../lib/http/route.js";
import { collectionRoute } from "../../../../lib/ogc/collection-routes.js";
import { COLLECTIONS } from "../../../../lib/ogc/vocabulary.js";

// GET /api/ogc/collections/location-proof-shapes: metadata with the extent computed from the data.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  ...collectionRoute(COLLECTIONS["location-proof-shapes"]),
});
