import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { getSyncService, reportStatus } from "../../lib/sync/service.js";

/**
 * The scheduled job: Vercel's cron calls it with GET every minute (vercel.json `crons`), with the bearer
 * CRON_SECRET; POST is the spec's manual trigger. Runs every enabled, unpaused chain within the budget.
 * 200 when no chain failed, 207 when some did, 500 when all did; failures are listed.
 */
const handler = route(
  async (request) => {
    parseQuery(request, {});
    const report = await (await getSyncService()).sync("cron");
    return json(report, { status: reportStatus(report) });
  },
  { access: "restricted" },
);

export const GET = handler;
export const POST = handler;
