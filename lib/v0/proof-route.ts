import * as v from "valibot";
import { badParameter } from "../http/errors.js";
import { parseQuery, routeParam } from "../http/query.js";
import { json } from "../http/respond.js";
import type { RouteDeclaration } from "../http/route.js";
import { uidParam } from "../params/grammar.js";
import { getLocationProof } from "./location-proofs.js";

/**
 * GET one proof by uid (a dynamic segment: a query parameter on Vercel, see routeParam).
 *
 * Served at its /api/v0 path and at its alias (lib/v0/paths.ts): one declaration, two route files, so the alias
 * can never answer differently from its twin; a module of its own, so a function bundles only what it imports.
 */
export const PROOF_ROUTE: RouteDeclaration = {
  access: "public",
  validators: "data",
  GET: async (request) => {
    parseQuery(request, {}, { routeParams: ["uid"] });
    const uid = v.safeParse(uidParam, routeParam(request, "uid"));
    if (!uid.success) throw badParameter("uid", uid.issues[0].message);
    return json(await getLocationProof(uid.output, request));
  },
};
