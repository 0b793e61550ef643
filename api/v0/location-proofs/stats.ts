import { getDb } from "../../../db/client.js";
import { parseQuery } from "../../../lib/http/query.js";
import { json } from "../../../lib/http/respond.js";
import { route } from "../../../lib/http/route.js";
import { sourceFilter } from "../../../lib/proofs/filter.js";
import { proofStats } from "../../../lib/proofs/stats.js";
import { STATS_PARAMS } from "../../../lib/v0/list-params.js";

// A static route: it wins over [uid] on Vercel and in the dev router.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    const q = parseQuery(request, STATS_PARAMS);
    return json(await proofStats(await getDb(), sourceFilter(q)));
  },
});
