import { readNoBody } from "../../lib/http/body.js";
import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { chainParam } from "../../lib/sync/params.js";
import { getSyncService, reportStatus } from "../../lib/sync/service.js";

/** POST /api/sync[?chain=a,b]: sync now (every enabled chain, or the ones named), paused ones included. */
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "restricted",
  POST: async (request) => {
    const { chain } = parseQuery(request, { chain: chainParam() });
    await readNoBody(request);
    const report = await (await getSyncService()).sync("manual", chain);
    return json(report, { status: reportStatus(report) });
  },
});
