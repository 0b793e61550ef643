import { type Db, getDb } from "../../db/client.js";
import { parseQuery } from "../http/query.js";
import { json } from "../http/respond.js";
import type { RouteDeclaration } from "../http/route.js";
import { publicationCounts } from "../offchain/records.js";
import { sourceFilter } from "../params/to-filter.js";
import { proofStats, type StatsFilter } from "../proofs/stats.js";
import { STATS_PARAMS } from "./list-params.js";

/**
 * GET the statistics: a static route, so it wins over the uid route on Vercel and in the dev router.
 *
 * Served at its /api/v0 path and at its alias (lib/v0/paths.ts): one declaration, two route files, so the alias
 * can never answer differently from its twin; a module of its own, so a function bundles only what it imports.
 */
export const STATS_ROUTE: RouteDeclaration = {
  access: "public",
  GET: async (request) => {
    const q = parseQuery(request, STATS_PARAMS);
    return json(await statsBody(await getDb(), sourceFilter(q)));
  },
};

/** The statistics document: the proofs' counts and the publications' (the MCP tool answers the same). */
export async function statsBody(db: Db, filter: StatsFilter) {
  const [stats, publications] = await Promise.all([proofStats(db, filter), publicationCounts(db)]);
  return { ...stats, publications };
}
