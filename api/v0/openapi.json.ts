import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { nativeOpenApiDocument, OPENAPI_MEDIA_TYPE } from "../../lib/v0/openapi.js";

// GET /api/v0/openapi.json: the native API as OpenAPI 3.1, generated from the validators (lib/v0/openapi.ts).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, {});
    return json(nativeOpenApiDocument(request), { contentType: OPENAPI_MEDIA_TYPE });
  },
});
