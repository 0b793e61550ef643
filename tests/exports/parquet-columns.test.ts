import { describe, expect, it } from "vitest";
import { columnStore, GeometryStore } from "../../lib/exports/parquet-columns.js";

const text = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString("utf8") : v);

describe("a GeoParquet row group's column stores give back what was pushed", () => {
  it("text: few values, then past the few (kept as bytes from the row that passes them), nulls and UTF-8 kept", () => {
    const store = columnStore({ name: "memo", type: "string", nullable: true }, 1000, false);
    const pushed: (string | null)[] = [];
    for (let i = 0; i < 700; i++) {
      // a few values for the first 400 rows, then each distinct: the store spills past its few in the group
      const v = i % 7 === 0 ? null : i < 400 ? `Zürich ${i % 5}` : `row ${i} ✓`;
      pushed.push(v);
      store.push(v);
    }
    expect(store.nearlyDistinct?.()).toBe(false);
    expect(store.values(false)).toEqual(pushed);
    // the store is empty after, and starts with few values again
    for (const v of pushed) store.push(v);
    expect(store.values(true).map(text)).toEqual(pushed);
    for (const v of ["a", null, "b", "a"]) store.push(v);
    const few = store.values(true);
    expect(few.map(text)).toEqual(["a", null, "b", "a"]);
    expect(few[0]).toBeInstanceOf(Uint8Array);
  });

  it("text distinct by meaning is bytes from the first row, and a sample tells when values are nearly all distinct", () => {
    const store = columnStore({ name: "uid", type: "hash", nullable: false }, 100, true);
    const pushed = Array.from({ length: 100 }, (_, i) => `0x${i.toString(16).padStart(64, "0")}`);
    for (const v of pushed) store.push(v);
    expect(store.nearlyDistinct?.()).toBe(true);
    expect(store.values(true).map(text)).toEqual(pushed);
  });

  it("integers as bigint, instants as milliseconds, booleans, numbers and nulls", () => {
    const int = columnStore({ name: "block_number", type: "integer", nullable: true }, 10, false);
    const at = columnStore({ name: "event_timestamp", type: "timestamp", nullable: true }, 10, false);
    const yes = columnStore({ name: "revoked", type: "boolean", nullable: false }, 10, false);
    const num = columnStore({ name: "latitude", type: "number", nullable: true }, 10, false);
    for (const [i, t, b, n] of [
      [7, "2025-12-11T09:15:56.000Z", true, -0.5],
      [null, null, false, null],
    ] as const) {
      int.push(i);
      at.push(t);
      yes.push(b);
      num.push(n);
    }
    expect(int.values(false)).toEqual([7n, null]);
    expect(at.values(false)).toEqual([Date.parse("2025-12-11T09:15:56.000Z"), null]);
    expect(yes.values(false)).toEqual([true, false]);
    expect(num.values(false)).toEqual([-0.5, null]);
  });

  it("JSON values as parsed, every empty list one object", () => {
    const store = columnStore({ name: "media_type", type: "strings", nullable: true }, 10, false);
    for (const v of [[], ["image/jpeg"], null, []]) store.push(v);
    const out = store.values(false);
    expect(out).toEqual([[], ["image/jpeg"], null, []]);
    expect(out[0]).toBe(out[3]);
  });

  it("geometry: points' WKB and bounds, shapes as given, none as null", () => {
    const g = new GeometryStore(10);
    g.point(13.4, 52.5);
    g.none();
    g.shape(Uint8Array.of(1, 2, 3), [-1, -2, 3, 4]);
    g.shape(Uint8Array.of(9), null);
    const wkb = g.geometries();
    expect(Buffer.from(wkb[0]!).readDoubleLE(5)).toBe(13.4);
    expect(Buffer.from(wkb[0]!).readDoubleLE(13)).toBe(52.5);
    expect(wkb[1]).toBeNull();
    expect(Array.from(wkb[2]!)).toEqual([1, 2, 3]);
    expect(Array.from(wkb[3]!)).toEqual([9]);
    expect(g.boxes()).toEqual([
      { xmin: 13.4, ymin: 52.5, xmax: 13.4, ymax: 52.5 },
      null,
      { xmin: -1, ymin: -2, xmax: 3, ymax: 4 },
      null,
    ]);
  });
});
