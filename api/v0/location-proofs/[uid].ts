import * as v from "valibot";
import { badParameter } from "../../../lib/http/errors.js";
import { parseQuery, routeParam } from "../../../lib/http/query.js";
import { json } from "../../../lib/http/respond.js";
import { route } from "../../../lib/http/route.js";
import { uidParam } from "../../../lib/params.js";
import { getLocationProof } from "../../../lib/v0/location-proofs.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  access: "public",
  GET: async (request) => {
    parseQuery(request, {}, { routeParams: ["uid"] });
    const uid = v.safeParse(uidParam, routeParam(request, "uid"));
    if (!uid.success) throw badParameter("uid", uid.issues[0].message);
    return json(await getLocationProof(uid.output));
  },
});
