import { route } from "../../../lib/http/route.js";
import { STATS_ROUTE } from "../../../lib/v0/stats-route.js";

// GET /api/v0/location-records/stats: the alias of /api/v0/location-proofs/stats (static, wins over [uid]).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({ ...STATS_ROUTE });
