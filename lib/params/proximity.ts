import { badParameter } from "../http/errors.js";
import type { Near } from "../proofs/near.js";

/**
 * The proximity parameters of the native list and the OGC items, checked together: `near` and `radius` come as a
 * pair, and the nearest-first order (`order`: the parameter that asked for it, native `sort` or OGC `sortby`) needs
 * them. Each value was checked by its own validator (lib/params/grammar.ts, nearParam and radiusParam); a 400 names the
 * parameter at fault, after `prefix` (GraphQL names its filter's fields `filter.near`).
 */
export function proximityOf(
  q: { near?: { lon: number; lat: number } | undefined; radius?: number | undefined },
  order?: { parameter: string; nearest: boolean },
  prefix = "",
): Near | undefined {
  if (q.near && q.radius === undefined)
    throw badParameter(`${prefix}near`, "near needs radius (metres): near=lon,lat&radius=1000");
  if (!q.near && q.radius !== undefined)
    throw badParameter(
      `${prefix}radius`,
      "radius needs near (the centre, lon,lat): near=lon,lat&radius=1000",
    );
  if (order?.nearest && !q.near) {
    throw badParameter(
      order.parameter,
      `${order.parameter}=distance (nearest first) needs near=lon,lat and radius (metres)`,
    );
  }
  return q.near && q.radius !== undefined ? { ...q.near, radius: q.radius } : undefined;
}
