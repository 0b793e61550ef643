import type { NewLocationProofRow } from "../../db/schema.js";
import { proofProperty } from "../../lib/proofs/properties.js";

/** A sortby as the tests write it: `-event_timestamp`, `block_number,-chain`. */
export const parseSortby = (sortby: string): { field: string; descending: boolean }[] =>
  sortby.split(",").map((s) => ({ field: s.replace(/^[-+]/, ""), descending: s.startsWith("-") }));

/**
 * The documented total order of a sortby, computed here rather than by the service: its keys, then uid and chain id
 * ascending; nulls last in either direction. A comparator of rows as inserted.
 */
export function compareBySort(sortby: string): (a: NewLocationProofRow, b: NewLocationProofRow) => number {
  const keys = parseSortby(sortby);
  if (!keys.some((k) => k.field === "uid")) keys.push({ field: "uid", descending: false });
  const value = (r: NewLocationProofRow, field: string) => {
    const q = proofProperty(field)!;
    const v = q.value(r as never);
    return q.type === "timestamp" && typeof v === "string" ? Date.parse(v) : v;
  };
  return (a, b) => {
    for (const k of keys) {
      const [x, y] = [value(a, k.field), value(b, k.field)] as [
        number | string | null,
        number | string | null,
      ];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (k.descending ? -1 : 1);
    }
    return a.chainId - b.chainId;
  };
}
