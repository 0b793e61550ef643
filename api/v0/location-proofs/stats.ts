import { getDb } from "../../../db/client.js";
import { parseQuery } from "../../../lib/http/query.js";
import { json } from "../../../lib/http/respond.js";
import { route } from "../../../lib/http/route.js";
import { proofStats } from "../../../lib/proofs/stats.js";

// A static route: it wins over [uid] on Vercel and in the dev router.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, {});
    return json(await proofStats(await getDb()));
  },
});
