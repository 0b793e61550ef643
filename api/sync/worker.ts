import * as v from "valibot";
import { readNoBody } from "../../lib/http/body.js";
import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { chainParam, workerActionParam } from "../../lib/sync/params.js";
import { getSyncService } from "../../lib/sync/service.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "restricted",
  /** GET: the background worker's state per chain. */
  GET: async (request) => {
    parseQuery(request, {});
    return json(await (await getSyncService()).worker());
  },
  /** POST ?action=pause|resume[&chain=a,b]: pause or resume the cron worker for some chains or all; persisted. */
  POST: async (request) => {
    const { action, chain } = parseQuery(request, {
      action: v.pipe(
        v.optional(v.string(), ""),
        v.nonEmpty("action is required: pause or resume"),
        workerActionParam,
      ),
      chain: chainParam(),
    });
    await readNoBody(request);
    return json(await (await getSyncService()).setWorker(action, chain));
  },
});
