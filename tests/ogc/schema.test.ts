import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { CHAIN_NAMES } from "../../lib/chains/registry.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { LOCATION_TYPES } from "../../lib/location/vocabulary.js";
import { SORTABLE_PROPERTIES } from "../../lib/proofs/properties.js";
import { appWith, type TestApp } from "../helpers/app.js";

// OGC API - Features Part 5: each collection's schema and sortables are JSON Schema 2020-12 (ajv's 2020 mode checks
// them against the meta-schema), carry the roles, and describe every member of real features, which validate.

let app: TestApp;
const rows = sampleProofs({ count: 400, seed: 5, now: new Date("2025-06-01T00:00:00Z") });
appWith(rows, (a) => {
  app = a;
});

const COLLECTIONS = ["location-proofs", "location-proof-shapes"];
const ajv = () => {
  const a = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(a);
  return a;
};
type Props = Record<string, { "x-ogc-role"?: string; enum?: unknown[] }>;

describe("schema", () => {
  for (const id of COLLECTIONS) {
    it(`${id}: JSON Schema 2020-12 with the roles id, primary-geometry, primary-instant, and the enums`, async () => {
      const res = await app.get(`/api/ogc/collections/${id}/schema`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/schema\+json/);
      const validator = ajv();
      expect(validator.validateSchema(res.body), JSON.stringify(validator.errors)).toBe(true);
      const props = res.body.properties as Props;
      const role = (r: string) => Object.keys(props).filter((k) => props[k]!["x-ogc-role"] === r);
      expect(role("id")).toEqual(["uid"]);
      expect(role("primary-geometry")).toEqual(["geometry"]);
      expect(role("primary-instant")).toEqual(["event_timestamp"]);
      expect(props.chain!.enum).toEqual(CHAIN_NAMES);
      expect(props.location_type_normalized!.enum).toEqual([...LOCATION_TYPES, null]);
    });

    it(`${id}: every member of real features is described, and each feature validates`, async () => {
      const schema = (await app.get(`/api/ogc/collections/${id}/schema`)).body;
      const validate = ajv().compile(schema);
      const pages = [
        await app.get(`/api/ogc/collections/${id}/items?limit=1000`),
        await app.get(`/api/ogc/collections/${id}/items?limit=50&near=13.4,52.5&radius=2000000`),
      ];
      let checked = 0;
      for (const page of pages) {
        for (const f of page.body.features) {
          for (const key of Object.keys(f.properties)) expect(schema.properties, key).toHaveProperty(key);
          const flat = { uid: f.id, geometry: f.geometry, ...f.properties };
          expect(validate(flat), JSON.stringify(validate.errors?.slice(0, 2))).toBe(true);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(rows.length);
    });
  }

  it("a feature missing a property, or with an unknown chain, does not validate (the schema can fail)", async () => {
    const schema = (await app.get("/api/ogc/collections/location-proofs/schema")).body;
    const validate = ajv().compile(schema);
    const f = (await app.get("/api/ogc/collections/location-proofs/items?limit=1")).body.features[0];
    const flat = { uid: f.id, geometry: f.geometry, ...f.properties };
    expect(validate(flat)).toBe(true);
    expect(validate({ ...flat, chain: "dogechain" })).toBe(false);
    const { revoked: _, ...missing } = flat;
    expect(validate(missing)).toBe(false);
  });
});

describe("sortables", () => {
  for (const id of COLLECTIONS) {
    it(`${id}: the sortable properties, each accepted by sortby`, async () => {
      const res = await app.get(`/api/ogc/collections/${id}/sortables`);
      expect(res.status).toBe(200);
      expect(ajv().validateSchema(res.body)).toBe(true);
      const names = Object.keys(res.body.properties);
      expect(names).toEqual([...SORTABLE_PROPERTIES.map((q) => q.name), "distance"]);
      for (const name of names.filter((n) => n !== "distance")) {
        expect((await app.get(`/api/ogc/collections/${id}/items?limit=2&sortby=-${name}`)).status).toBe(200);
      }
      expect((await app.get(`/api/ogc/collections/${id}/items?limit=2&sortby=memo`)).status).toBe(400);
    });
  }

  it("the collection links its schema and sortables", async () => {
    const c = (await app.get("/api/ogc/collections/location-proofs")).body;
    const rels = c.links.map((l: { rel: string }) => l.rel);
    expect(rels).toContain("http://www.opengis.net/def/rel/ogc/1.0/schema");
    expect(rels).toContain("http://www.opengis.net/def/rel/ogc/1.0/sortables");
    const conformance = (await app.get("/api/ogc/conformance")).body.conformsTo;
    expect(conformance).toContain("http://www.opengis.net/spec/ogcapi-features-5/1.0/conf/schemas");
    expect(conformance).toContain("http://www.opengis.net/spec/ogcapi-features-5/1.0/conf/sortables");
    expect((await app.get("/api/ogc/collections/location-proofs/schema?f=html")).status).toBe(200);
  });
});
