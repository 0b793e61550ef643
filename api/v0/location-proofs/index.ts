import { route } from "../../../lib/http/route.js";
import { LIST_ROUTE } from "../../../lib/v0/list-route.js";

// GET /api/v0/location-proofs: JSON, or the same page as HTML for a browser (Accept, or f=html).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({ ...LIST_ROUTE });
