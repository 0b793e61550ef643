import { badParameter } from "../http/errors.js";
import { proofProperty, SORTABLE_PROPERTIES } from "../proofs/properties.js";
import { DISTANCE, type SortSpec } from "../proofs/sort.js";

/**
 * `sortby` (OGC API - Features Part 8 syntax, as pygeoapi and tipg accept it): a comma-separated list of
 * properties, each optionally prefixed with `+` (ascending, the default) or `-` (descending). The shared sort layer
 * completes every order with the primary key, so paging stays deterministic whatever the client asks.
 *
 * Every order offered is an index seek on every page (lib/proofs/sort.ts, keysetSegments; db/schema.ts): one
 * property, whose index holds its order, or a property whose values rarely tie (THEN_AFTER) followed by others, which
 * only order its few ties. After any other property only uid may follow (either way: the same indexes hold it). A
 * further key after chain, prover or subject (thousands of proofs per value) or after a property some proofs lack
 * (their nulls, thousands of them, would be sorted on every page) has no index and is a 400.
 */
export const THEN_AFTER = ["uid", "attestation_time", "block_number"] as const;

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
    const before = specs[0]?.field;
    if (before !== undefined && field !== "uid" && !(THEN_AFTER as readonly string[]).includes(before)) {
      throw badParameter(
        "sortby",
        `sortby: '${before}' takes no further property but uid (no index holds that order); further properties only after ${THEN_AFTER.join(", ")}`,
      );
    }
    specs.push({ field, descending });
  }
  return specs;
}
