import { parseQuery } from "../../../lib/http/query.js";
import { json } from "../../../lib/http/respond.js";
import { route } from "../../../lib/http/route.js";

/** Reachability check of the cron endpoint: no side effects, no credentials, never cached. */
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  cache: false,
  GET: async (request) => {
    parseQuery(request, {});
    return json({
      status: "ok",
      endpoint: "/api/cron/sync",
      schedule: "* * * * *",
      time: new Date().toISOString(),
    });
  },
});
