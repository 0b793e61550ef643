import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { chainParam } from "../../lib/sync/params.js";
import { getSyncService } from "../../lib/sync/service.js";

/** POST /api/sync/revocations[?chain=a]: full reconciliation of stored non-revoked proofs against EAS. */
export const POST = route(
  async (request) => {
    const { chain } = parseQuery(request, { chain: chainParam() });
    const result = await (await getSyncService()).reconcile(chain);
    return json(result, { status: result.status === "error" ? 500 : 200 });
  },
  { access: "restricted" },
);
