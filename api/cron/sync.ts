import { readNoBody } from "../../lib/http/body.js";
import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { getSyncService, reportStatus } from "../../lib/sync/service.js";

/**
 * The scheduled job: Vercel's cron calls it with GET every minute (vercel.json `crons`), with the bearer
 * CRON_SECRET; POST is the spec's manual trigger. Runs every enabled, unpaused chain within the budget.
 * 200 when no chain failed, 207 when some did, 500 when all did; failures are listed.
 */
async function sync(request: Request): Promise<Response> {
  parseQuery(request, {});
  await readNoBody(request);
  const report = await (await getSyncService()).sync("cron");
  return json(report, { status: reportStatus(report) });
}

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "restricted",
  GET: sync,
  POST: sync,
});
