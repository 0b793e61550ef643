import { parseQuery } from "../../../lib/http/query.js";
import { json } from "../../../lib/http/respond.js";
import { route } from "../../../lib/http/route.js";
import { LIST_PARAMS } from "../../../lib/v0/list-params.js";
import { listLocationProofs } from "../../../lib/v0/location-proofs.js";

export { preflight as OPTIONS } from "../../../lib/http/cors.js";

export const GET = route(
  async (request) => json(await listLocationProofs(request, parseQuery(request, LIST_PARAMS))),
  { access: "public" },
);
