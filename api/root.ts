import { parseQuery } from "../lib/http/query.js";
import { json } from "../lib/http/respond.js";
import { route } from "../lib/http/route.js";
import { rootInfo } from "../lib/v0/service-info.js";

export { preflight as OPTIONS } from "../lib/http/cors.js";

// Served at / (vercel.json rewrite).
export const GET = route(
  async (request) => {
    parseQuery(request, {});
    return json(rootInfo(request));
  },
  { access: "public" },
);
