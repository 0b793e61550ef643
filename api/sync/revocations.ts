import { readNoBody } from "../../lib/http/body.js";
import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { chainParam } from "../../lib/sync/params.js";
import { getSyncService, reconcileStatus } from "../../lib/sync/service.js";

/**
 * POST /api/sync/revocations[?chain=a]: full reconciliation of stored non-revoked proofs against EAS.
 * 200 when no chain failed, 207 when some did, 500 when all did (as the sync and cron routes).
 */
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "restricted",
  POST: async (request) => {
    const { chain } = parseQuery(request, { chain: chainParam() });
    await readNoBody(request);
    const result = await (await getSyncService()).reconcile(chain);
    return json(result, { status: reconcileStatus(result) });
  },
});
