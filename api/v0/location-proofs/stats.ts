import { route } from "../../../lib/http/route.js";
import { STATS_ROUTE } from "../../../lib/v0/stats-route.js";

// GET /api/v0/location-proofs/stats: a static route, it wins over [uid] on Vercel and in the dev router.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({ ...STATS_ROUTE });
