import { parseQuery } from "../http/query.js";
import type { RouteDeclaration } from "../http/route.js";
import { LIST_PARAMS } from "./list-params.js";
import { listResource } from "./location-proofs.js";

/**
 * GET the list: JSON, or the same page as HTML for a browser (Accept, or f=html).
 *
 * Served at its /api/v0 path and at its alias (lib/v0/paths.ts): one declaration, two route files, so the alias
 * can never answer differently from its twin; a module of its own, so a function bundles only what it imports.
 */
export const LIST_ROUTE: RouteDeclaration = {
  access: "public",
  validators: "data",
  carriesVersion: true,
  GET: async (request) => listResource(request, parseQuery(request, LIST_PARAMS)),
};
