import { FORMAT_ONLY, negotiateFormat } from "../lib/http/format.js";
import { parseQuery } from "../lib/http/query.js";
import { route } from "../lib/http/route.js";
import { rootResource } from "../lib/v0/root.js";

// Served at / (vercel.json rewrite): JSON for API clients, the home page for a browser (Accept, or f=html).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => rootResource(request, negotiateFormat(request, parseQuery(request, FORMAT_ONLY).f)),
});
