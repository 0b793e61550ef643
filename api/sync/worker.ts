import * as v from "valibot";
import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { chainParam, workerActionParam } from "../../lib/sync/params.js";
import { getSyncService } from "../../lib/sync/service.js";

/** GET: the background worker's state per chain. */
export const GET = route(
  async (request) => {
    parseQuery(request, {});
    return json(await (await getSyncService()).worker());
  },
  { access: "restricted" },
);

/** POST ?action=pause|resume[&chain=a,b]: pause or resume the cron worker for some chains or all; persisted. */
export const POST = route(
  async (request) => {
    const { action, chain } = parseQuery(request, {
      action: v.pipe(
        v.optional(v.string(), ""),
        v.nonEmpty("action is required: pause or resume"),
        workerActionParam,
      ),
      chain: chainParam(),
    });
    return json(await (await getSyncService()).setWorker(action, chain));
  },
  { access: "restricted" },
);
