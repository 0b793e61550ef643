import { badParameter } from "../http/errors.js";
import { proofProperty, SORTABLE_PROPERTIES } from "../proofs/properties.js";
import { DISTANCE, type SortSpec } from "../proofs/sort.js";

/**
 * `sortby` (OGC API - Features Part 8 syntax, as pygeoapi and tipg accept it): a comma-separated list of
 * properties, each optionally prefixed with `+` (ascending, the default) or `-` (descending). The shared sort layer
 * completes every order with the primary key, so paging stays deterministic whatever the client asks.
 */
export function parseSortby(value: string): SortSpec[] {
  const specs: SortSpec[] = [];
  const items = value.split(",").map((raw) => raw.trim());
  for (const item of items) {
    const descending = item.startsWith("-");
    const field = item.replace(/^[+-]/, "");
    // `distance`: nearest first, from near (lib/proofs/nearest.ts); the order's whole key, ascending only.
    if (field === DISTANCE) {
      if (descending || items.length > 1) {
        throw badParameter(
          "sortby",
          "sortby: distance (nearest first) stands alone and ascending: sortby=distance",
        );
      }
      return [{ field, descending: false }];
    }
    if (!proofProperty(field)?.sortable) {
      throw badParameter(
        "sortby",
        `sortby: unknown property '${field}'. Sortable: ${SORTABLE_PROPERTIES.map((q) => q.name).join(", ")}, or distance (nearest first, with near and radius)`,
      );
    }
    if (specs.some((s) => s.field === field))
      throw badParameter("sortby", `sortby: '${field}' is given twice`);
    specs.push({ field, descending });
  }
  return specs;
}
