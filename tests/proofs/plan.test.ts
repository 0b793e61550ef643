import { describe, expect, it } from "vitest";
import { countParts, locatedFirst } from "../../lib/proofs/count.js";
import { cursorToken, encodeCursor } from "../../lib/proofs/cursor.js";
import type { ProofFilter } from "../../lib/proofs/filter.js";
import { type PagePlan, planPage, SMALL_RESULT, smallResult } from "../../lib/proofs/plan.js";
import type { ProofRow } from "../../lib/proofs/rows.js";
import { orderSignature, sortKeys } from "../../lib/proofs/sort.js";

// planPage (lib/proofs/plan.ts): filter → order → cursor → WHERE once, and the plan is what the rest reads.
const OGC: ProofFilter = {
  includeRevoked: true,
  bboxMatchesMissing: true,
  timesMatchMissing: true,
  bbox: { minLon: 13.3, minLat: 52.45, maxLon: 13.5, maxLat: 52.57 },
};
const row = {
  uid: `0x${"ab".repeat(32)}`,
  chainId: 8453,
  eventTimestamp: new Date("2025-06-01T00:00:00.000Z"),
} as unknown as ProofRow;

describe("planPage", () => {
  it("plans the order, its parts and its keys once, as sort, count and cursor make them", () => {
    const sort = [{ field: "chain", descending: false }];
    const plan = planPage(OGC, { limit: 10, sort }) as PagePlan;
    expect(plan.order).toEqual({ sort, located: locatedFirst(OGC) });
    expect(plan.parts).toEqual(countParts(OGC));
    expect(plan.parts).toHaveLength(2);
    expect(plan.keys.map((k) => k.field)).toEqual(sortKeys(sort).map((k) => k.field));
    expect(plan.signature).toBe(orderSignature(plan.order));
    expect(plan.signature).toBe("located(geometry),chain");
    expect(plan.where).toBeDefined();
    expect(plan.cursor).toBeUndefined();
  });

  it("decodes a cursor the plan's own order made, and hands it on", () => {
    const first = planPage({}, { limit: 10 }) as PagePlan;
    const token = encodeCursor(first, "next", row, 10);
    const plan = planPage({}, { limit: 10, cursor: token }) as PagePlan;
    expect(plan.cursor).toEqual({
      direction: "next",
      position: 10,
      values: ["2025-06-01T00:00:00.000Z", row.uid, 8453],
    });
  });

  it("names cursor when a cursor comes with an offset, is garbled, or belongs to another order", () => {
    const token = cursorToken("-event_timestamp", "next", 0, ["2025-06-01T00:00:00.000Z", row.uid, 8453]);
    expect(planPage({}, { limit: 10, cursor: token, offset: 5 })).toMatchObject({
      parameter: "cursor",
      problem: expect.stringContaining("cannot be combined"),
    });
    expect(planPage({}, { limit: 10, cursor: `${token}x` })).toMatchObject({ parameter: "cursor" });
    expect(planPage(OGC, { limit: 10, cursor: token })).toMatchObject({
      parameter: "cursor",
      problem: expect.stringContaining("another sort order"),
    });
  });
});

describe("smallResult: how many matches of a box a page reads rather than walking its order for", () => {
  it("is SMALL_RESULT at a million proofs and a page of 100, and grows with the table and the page", () => {
    expect(smallResult(100, undefined)).toBe(SMALL_RESULT);
    expect(smallResult(100, 0)).toBe(SMALL_RESULT);
    expect(smallResult(1000, 50_000)).toBe(SMALL_RESULT); // a small table: never below
    expect(Math.abs(smallResult(100, 1_000_000) - SMALL_RESULT)).toBeLessThan(100);
    // √((limit + 1) × rows) / 2: the walk's (limit + 1) × rows / matches against the matches themselves.
    expect(smallResult(100, 10_000_000)).toBe(Math.round(Math.sqrt(101 * 10_000_000) / 2));
    expect(smallResult(1000, 1_000_000)).toBeGreaterThan(3 * SMALL_RESULT);
    expect(smallResult(10, 10_000_000)).toBeLessThan(smallResult(100, 10_000_000));
  });
});
