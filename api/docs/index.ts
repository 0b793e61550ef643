import { docsResponse } from "../../lib/docs/page.js";
import { parseQuery } from "../../lib/http/query.js";
import { route } from "../../lib/http/route.js";

// Served at /docs (vercel.json rewrite): the API documentation page (Swagger UI over /api/v0/openapi.json).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, {});
    return docsResponse();
  },
});
