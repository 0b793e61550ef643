import { route } from "../../lib/http/route.js";
import { CONFIG_ROUTE } from "../../lib/v0/config-route.js";

// GET /api/v0/config.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({ ...CONFIG_ROUTE });
