import * as v from "valibot";
import { badParameter } from "../http/errors.js";
import { parseQuery, routeParam } from "../http/query.js";
import { uidParam } from "./grammar.js";

/**
 * The uid a route's path names (`…/{uid}`, `…/{uid}/signed`), checked; the route takes no query parameter besides.
 * One reading for every such route, so they refuse the same requests with the same words.
 */
export function pathUid(request: Request): string {
  parseQuery(request, {}, { routeParams: ["uid"] });
  const uid = v.safeParse(uidParam, routeParam(request, "uid"));
  if (!uid.success) throw badParameter("uid", uid.issues[0].message);
  return uid.output;
}
