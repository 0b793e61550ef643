import { readNoBody } from "../../lib/http/body.js";
import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { getSyncService } from "../../lib/sync/service.js";

/**
 * The scheduled job: Vercel's cron calls it with GET every minute (vercel.json `crons`), with the bearer
 * CRON_SECRET; POST is the spec's manual trigger. Runs every enabled, unpaused chain within the budget.
 * 200 when no chain failed, 207 when some did, 500 when all did; failures are listed; 503 with Retry-After once a
 * chain was skipped SYNC_ALERT_AFTER_SKIPS runs in a row (a stuck writer), so cron monitoring sees it.
 */
async function sync(request: Request): Promise<Response> {
  parseQuery(request, {});
  await readNoBody(request);
  const { report, status, headers } = await (await getSyncService()).cron();
  return json(report, { status, ...(headers ? { headers } : {}) });
}

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "restricted",
  GET: sync,
  POST: sync,
});
