import { json } from "../http/respond.js";
import type { RouteDeclaration } from "../http/route.js";
import { pathUid } from "../params/path-uid.js";
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
    return json(await getLocationProof(pathUid(request), request));
  },
};
