import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../lib/local/sample-proofs.js";
import { isoString } from "../../lib/proofs/timestamps.js";

describe("isoString: the fast Date#toISOString the proof records are written with", () => {
  it("writes exactly what toISOString writes, across years 0001–9999 and beyond", () => {
    // Seeded, so a failure names an instant that reproduces.
    const next = mulberry32(7);
    const lo = Date.UTC(1, 0, 1) - 10 * 365 * 86_400_000;
    const hi = Date.UTC(10_001, 0, 1);
    for (let i = 0; i < 200_000; i++) {
      const d = new Date(Math.floor(lo + next() * (hi - lo)));
      expect(isoString(d), String(d.getTime())).toBe(d.toISOString());
    }
  });

  it("agrees at the edges: the fast range's ends, the fallback's, digits that need padding", () => {
    const edges = [
      "0001-01-01T00:00:00.000Z",
      "0999-12-31T23:59:59.999Z",
      "1000-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.000Z",
      "2000-02-29T09:05:07.005Z",
      "2026-11-23T12:00:00.050Z",
      "9999-12-31T23:59:59.999Z",
    ];
    for (const text of edges) expect(isoString(new Date(text))).toBe(text);
    for (const ms of [Date.UTC(10_000, 0, 1), Date.UTC(-1, 5, 6, 7, 8, 9, 10), 8.64e15, -8.64e15]) {
      expect(isoString(new Date(ms))).toBe(new Date(ms).toISOString());
    }
  });

  it("refuses an invalid date as toISOString does", () => {
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
  });
});
