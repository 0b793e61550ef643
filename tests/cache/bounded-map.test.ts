import { describe, expect, it } from "vitest";
import { BoundedMap } from "../../lib/cache/bounded-map.js";

describe("BoundedMap", () => {
  it("holds at most its bound, letting the least recently used entry go", () => {
    const m = new BoundedMap<string, number>(3);
    for (const [i, k] of ["a", "b", "c"].entries()) m.set(k, i);
    expect(m.get("a")).toBe(0); // a is now the most recently used: b is the oldest
    m.set("d", 3);
    expect(m.size).toBe(3);
    expect(m.has("b")).toBe(false);
    expect([m.get("a"), m.get("c"), m.get("d")]).toEqual([0, 2, 3]);
  });

  it("setting a key again keeps one entry and makes it the most recent", () => {
    const m = new BoundedMap<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    m.set("a", 10);
    m.set("c", 3);
    expect(m.size).toBe(2);
    expect(m.has("b")).toBe(false);
    expect(m.get("a")).toBe(10);
  });

  it("getOrMake makes a value once while it is kept, and again after it went", () => {
    const m = new BoundedMap<string, { n: number } | undefined>(1);
    let made = 0;
    const make = () => {
      made++;
      return made % 2 ? { n: made } : undefined;
    };
    const first = m.getOrMake("x", make);
    expect(m.getOrMake("x", make)).toBe(first);
    expect(made).toBe(1);
    m.getOrMake("y", make); // a kept undefined counts as kept
    expect(m.getOrMake("y", make)).toBeUndefined();
    expect(made).toBe(2);
    expect(m.getOrMake("x", make)).toEqual({ n: 3 });
  });

  it("refuses a bound below 1", () => {
    expect(() => new BoundedMap(0)).toThrow(RangeError);
    expect(() => new BoundedMap(1.5)).toThrow(RangeError);
  });
});
