import { badParameter } from "../http/errors.js";
import { proofProperty, SORTABLE_PROPERTIES } from "../proofs/properties.js";
import type { SortSpec } from "../proofs/sort.js";

/**
 * `sortby` (OGC API - Features Part 8 syntax, as pygeoapi and tipg accept it): a comma-separated list of
 * properties, each optionally prefixed with `+` (ascending, the default) or `-` (descending). The shared sort layer
 * completes every order with the primary key, so paging stays deterministic whatever the client asks.
 */
export function parseSortby(value: string): SortSpec[] {
  const specs: SortSpec[] = [];
  for (const raw of value.split(",")) {
    const item = raw.trim();
    const descending = item.startsWith("-");
    const field = item.replace(/^[+-]/, "");
    if (!proofProperty(field)?.sortable) {
      throw badParameter(
        "sortby",
        `sortby: unknown property '${field}'. Sortable: ${SORTABLE_PROPERTIES.map((q) => q.name).join(", ")}`,
      );
    }
    if (specs.some((s) => s.field === field))
      throw badParameter("sortby", `sortby: '${field}' is given twice`);
    specs.push({ field, descending });
  }
  return specs;
}
