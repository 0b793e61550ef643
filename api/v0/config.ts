import { parseQuery } from "../../lib/http/query.js";
import { json } from "../../lib/http/respond.js";
import { route } from "../../lib/http/route.js";
import { serviceConfig } from "../../lib/v0/service-info.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, {});
    return json(await serviceConfig(request));
  },
});
