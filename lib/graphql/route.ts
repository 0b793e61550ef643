import { negotiateFormat } from "../http/format.js";
import type { RouteDeclaration } from "../http/route.js";
import { graphiqlPage } from "./graphiql.js";
import { asksQuery, graphqlResponse } from "./http.js";

/**
 * /graphql: a GET without a query from a browser (Accept preferring text/html) gets GraphiQL; every other GET and
 * every POST is a GraphQL request (lib/graphql/http.ts).
 */
export const GRAPHQL_ROUTE: RouteDeclaration = {
  access: "public",
  GET: async (request) =>
    !asksQuery(request) && negotiateFormat(request, undefined) === "html"
      ? graphiqlPage()
      : graphqlResponse(request),
  POST: graphqlResponse,
};
