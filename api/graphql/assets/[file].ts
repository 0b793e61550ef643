import { graphiqlAssetResponse } from "../../../lib/graphql/graphiql.js";
import { parseQuery, routeParam } from "../../../lib/http/query.js";
import { route } from "../../../lib/http/route.js";

// GET /api/graphql/assets/{file}: GraphiQL and React (from our npm dependencies) and its start-up files, for /graphql.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, {}, { routeParams: ["file"] });
    return graphiqlAssetResponse(routeParam(request, "file"));
  },
});
