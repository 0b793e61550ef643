import { parseQuery } from "../lib/http/query.js";
import { json } from "../lib/http/respond.js";
import { route } from "../lib/http/route.js";
import { health } from "../lib/v0/service-info.js";

// Served at /health (vercel.json rewrite). Never cached: it must report the present.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  cache: false,
  GET: async (request) => {
    parseQuery(request, {});
    return json(await health());
  },
});
