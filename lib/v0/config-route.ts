import { parseQuery } from "../http/query.js";
import { json } from "../http/respond.js";
import type { RouteDeclaration } from "../http/route.js";
import { serviceConfig } from "./service-info.js";

/**
 * GET the configuration (chains, contracts, limits).
 *
 * Served at its /api/v0 path and at its alias (lib/v0/paths.ts): one declaration, two route files, so the alias
 * can never answer differently from its twin; a module of its own, so a function bundles only what it imports.
 */
export const CONFIG_ROUTE: RouteDeclaration = {
  access: "public",
  GET: async (request) => {
    parseQuery(request, {});
    return json(await serviceConfig(request));
  },
};
