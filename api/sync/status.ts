import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { getSyncService } from "../../lib/sync/service.js";

/** GET /api/sync/status: per chain cursor, head, lag, last run, lease holder; the worker state. From the database. */
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "restricted",
  GET: async (request) => {
    parseQuery(request, {});
    return json(await (await getSyncService()).status());
  },
});
