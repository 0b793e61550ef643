import { getDb } from "../../db/client.js";
import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { publicationCounts } from "../../lib/offchain/records.js";
import { getSyncService } from "../../lib/sync/service.js";

/**
 * GET /api/sync/status: per chain cursor, head, lag, last run, lease holder; the worker state; the off-chain
 * publications held. From the database.
 */
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "restricted",
  GET: async (request) => {
    parseQuery(request, {});
    const [status, publications] = await Promise.all([
      (await getSyncService()).status(),
      publicationCounts(await getDb()),
    ]);
    // Off-chain publications beside the sync's own figures (lib/offchain/): the operator's one view of writes.
    return json({ ...status, publications });
  },
});
