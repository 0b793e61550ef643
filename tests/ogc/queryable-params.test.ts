import { describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import {
  EARLIER_QUERYABLE_PARAMS,
  QUERYABLE_PARAM_NAMES,
  SIMPLE_QUERYABLES,
} from "../../lib/params/queryable-params.js";
import { appWith, type TestApp } from "../helpers/app.js";
import { POINT_ITEMS as POINTS, SHAPE_ITEMS as SHAPES } from "../helpers/routes.js";

// OGC API - Features Part 3, queryables as query parameters: every queryable with a simple value filters the items of
// both collections and the tiles by its name. The truth is the unfiltered collection read back and filtered here by
// the feature's own property value (not by the compiler): `name=value` keeps exactly the features whose property
// equals value.

let app: TestApp;
const rows = sampleProofs({ count: 300, seed: 23, now: new Date("2025-06-01T00:00:00Z") });
appWith(rows, (a) => {
  app = a;
});

const TILE = "/api/ogc/collections/location-proofs/tiles/WebMercatorQuad/0/0/0";
type Feature = { id: string; properties: Record<string, unknown> };

async function features(path: string, query = ""): Promise<Feature[]> {
  const res = await app.get(`${path}?limit=1000${query ? `&${query}` : ""}`);
  expect(res.status, `${query}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  expect(res.body.numberMatched).toBe(res.body.features.length);
  return res.body.features;
}
const ids = (fs: Feature[]) => fs.map((f) => f.id).sort();

/** Equality as the queryable's type has it: an instant whatever its offset, an address whatever its case. */
const same = (a: unknown, b: unknown) =>
  typeof a === "string" && /^\d{4}-\d\d-\d\dT/.test(a)
    ? new Date(a).getTime() === new Date(String(b)).getTime()
    : typeof a === "string" && a.startsWith("0x")
      ? a.toLowerCase() === String(b).toLowerCase()
      : a === b;

/** The most frequent non-null value of a property among the features (so a filter on it selects several). */
function commonValue(fs: Feature[], name: string): unknown {
  const counts = new Map<string, { value: unknown; n: number }>();
  for (const f of fs) {
    const value = f.properties[name];
    if (value === null || value === undefined) continue;
    const key = JSON.stringify(value);
    counts.set(key, { value, n: (counts.get(key)?.n ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.value;
}

/** How a value is written in a query: an instant with another offset and an address in capitals, to be sure. */
function written(value: unknown): string {
  if (typeof value === "string" && /^\d{4}-\d\d-\d\dT/.test(value)) {
    const t = new Date(value);
    return new Date(t.getTime() + 2 * 3_600_000).toISOString().replace(/\.\d+Z$/, "+02:00");
  }
  if (typeof value === "string" && /^0x[0-9a-f]+$/.test(value)) return `0x${value.slice(2).toUpperCase()}`;
  return String(value);
}

describe("queryables as query parameters", () => {
  it("every queryable with a simple value has a parameter, and only those", () => {
    expect([...QUERYABLE_PARAM_NAMES, ...EARLIER_QUERYABLE_PARAMS].sort()).toEqual(
      [...SIMPLE_QUERYABLES].sort(),
    );
  });

  for (const path of [POINTS, SHAPES]) {
    it(`${path.split("/")[4]}: each parameter keeps exactly the features whose property equals its value`, async () => {
      const all = await features(path);
      let narrowed = 0;
      for (const name of QUERYABLE_PARAM_NAMES) {
        const value = commonValue(all, name);
        expect(value, `${name}: the sample holds a value`).not.toBeUndefined();
        const query = `${name}=${encodeURIComponent(written(value))}`;
        const got = await features(path, query);
        const want = all.filter((f) => same(f.properties[name], value));
        expect(ids(got), query).toEqual(ids(want));
        expect(want.length, query).toBeGreaterThan(0);
        if (want.length < all.length) narrowed++;
      }
      // Not vacuous: most parameters select fewer features than the whole collection.
      expect(narrowed).toBeGreaterThan(QUERYABLE_PARAM_NAMES.length / 2);
    });
  }

  it("parameters combine with AND, and with filter, as the same CQL2 predicate would", async () => {
    const both = await features(POINTS, "chain=base&revoked=false");
    const cql = await features(POINTS, `filter=${encodeURIComponent("chain = 'base' AND revoked = false")}`);
    expect(ids(both)).toEqual(ids(cql));
    expect(both.length).toBeGreaterThan(0);
    const mixed = await features(POINTS, `revoked=true&filter=${encodeURIComponent("chain = 'base'")}`);
    const all = await features(POINTS);
    expect(ids(mixed)).toEqual(
      ids(all.filter((f) => f.properties.chain === "base" && f.properties.revoked === true)),
    );
  });

  it("a null never equals: the features without a value are among those the tests above leave out", async () => {
    const all = await features(POINTS);
    const withNulls = QUERYABLE_PARAM_NAMES.filter((name) => all.some((f) => f.properties[name] === null));
    expect(withNulls.length).toBeGreaterThan(0);
    for (const name of withNulls) {
      const got = await features(POINTS, `${name}=${encodeURIComponent(written(commonValue(all, name)))}`);
      expect(got.length, name).toBeGreaterThan(0);
      for (const f of got) expect(f.properties[name], name).not.toBeNull();
    }
  });

  it("a tile takes them: the same tile as the CQL2 filter's, another than the unfiltered one", async () => {
    const read = async (query: string) => {
      const res = await app.request(`${TILE}${query}`);
      expect(res.status).toBe(200);
      return Buffer.from(await res.arrayBuffer());
    };
    const byParam = await read("?revoked=true&chain_id=8453");
    const byFilter = await read(`?filter=${encodeURIComponent("revoked = true AND chain_id = 8453")}`);
    expect(byParam.equals(byFilter)).toBe(true);
    expect(byParam.equals(await read(""))).toBe(false);
  });

  it("a value not of the queryable's type is a 400 naming the parameter; an unknown parameter is still a 400", async () => {
    for (const [name, value] of [
      ["revoked", "maybe"],
      ["chain_id", "base"],
      ["block_number", "1.5"],
      ["latitude", "north"],
      ["event_timestamp", "yesterday"],
      ["attestation_time", "2025-02-30T00:00:00Z"],
      ["uid", "0x12"],
      ["schema_uid", "0xzz"],
      ["memo", ""],
      ["memo", "a\u0000b"],
      ["latitude", "1e400"],
      ["block_number", "99999999999999999"],
    ]) {
      for (const path of [POINTS, SHAPES, TILE]) {
        const res = await app.get(`${path}?${name}=${encodeURIComponent(value!)}`);
        expect(res.status, `${path} ${name}=${value}`).toBe(400);
        expect(res.body.parameter, `${path} ${name}=${value}`).toBe(name);
      }
    }
    for (const path of [POINTS, TILE]) {
      const res = await app.get(`${path}?colour=red`);
      expect(res.status).toBe(400);
    }
    // recipe_type is an array: CQL2 (A_CONTAINS) serves it, not a parameter.
    expect((await app.get(`${POINTS}?recipe_type=gps`)).status).toBe(400);
  });

  it("declared: the conformance class, and each parameter on the items paths with the queryable's schema", async () => {
    const conformance = await app.get("/api/ogc/conformance");
    expect(conformance.body.conformsTo).toContain(
      "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
    );
    const api = await app.get("/api/ogc/api");
    const queryables = await app.get("/api/ogc/collections/location-proofs/queryables");
    for (const path of ["/collections/location-proofs/items", "/collections/location-proof-shapes/items"]) {
      const params = api.body.paths[path].get.parameters as {
        name: string;
        schema: Record<string, unknown>;
      }[];
      for (const name of QUERYABLE_PARAM_NAMES) {
        const p = params.find((x) => x.name === name);
        expect(p, `${path} ${name}`).toBeDefined();
        expect(p!.schema.type).toBe(queryables.body.properties[name].type);
      }
    }
  });
});
