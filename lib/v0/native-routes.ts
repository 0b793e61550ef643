import * as v from "valibot";
import { getDb } from "../../db/client.js";
import { badParameter } from "../http/errors.js";
import { parseQuery, routeParam } from "../http/query.js";
import { json } from "../http/respond.js";
import type { RouteDeclaration } from "../http/route.js";
import { uidParam } from "../params.js";
import { proofStats } from "../proofs/stats.js";
import { LIST_PARAMS } from "./list-params.js";
import { getLocationProof, listResource } from "./location-proofs.js";
import { serviceConfig } from "./service-info.js";

/**
 * The native resources' route declarations, each served at its /api/v0 path and at its alias (lib/v0/paths.ts):
 * one declaration, two route files, so an alias can never answer differently from its twin.
 */

/** GET the list: JSON, or the same page as HTML for a browser (Accept, or f=html). */
export const LIST_ROUTE: RouteDeclaration = {
  access: "public",
  GET: async (request) => listResource(request, parseQuery(request, LIST_PARAMS)),
};

/** GET one proof by uid (a dynamic segment: a query parameter on Vercel, see routeParam). */
export const PROOF_ROUTE: RouteDeclaration = {
  access: "public",
  GET: async (request) => {
    parseQuery(request, {}, { routeParams: ["uid"] });
    const uid = v.safeParse(uidParam, routeParam(request, "uid"));
    if (!uid.success) throw badParameter("uid", uid.issues[0].message);
    return json(await getLocationProof(uid.output));
  },
};

/** GET the statistics: a static route, so it wins over the uid route on Vercel and in the dev router. */
export const STATS_ROUTE: RouteDeclaration = {
  access: "public",
  GET: async (request) => {
    parseQuery(request, {});
    return json(await proofStats(await getDb()));
  },
};

/** GET the configuration (chains, contracts, limits). */
export const CONFIG_ROUTE: RouteDeclaration = {
  access: "public",
  GET: async (request) => {
    parseQuery(request, {});
    return json(await serviceConfig(request));
  },
};
