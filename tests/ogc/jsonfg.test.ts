import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { crsByName } from "../../lib/crs/systems.js";
import { geometryTo } from "../../lib/crs/transform.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith, ROOT, type TestApp } from "../helpers/app.js";

// JSON-FG 1.0 on the items and single items of both collections, every response validated against the OGC's JSON
// Schemas (tests/data/json-fg/, SOURCE.md says where they come from) with ajv in JSON Schema 2020-12 mode.

let app: TestApp;
const rows = sampleProofs({ count: 200, seed: 11, now: new Date("2025-06-01T00:00:00Z") }).map((r, i) =>
  i % 20 === 3 ? { ...r, eventTimestamp: null, eventTimestampRaw: "0" } : r,
);
appWith(rows, (a) => {
  app = a;
});

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const dir = join(ROOT, "tests/data/json-fg");
for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
  ajv.addSchema(JSON.parse(readFileSync(join(dir, file), "utf8")));
}
const schema = (name: string) => ajv.getSchema(`https://schemas.opengis.net/json-fg/${name}`)!;

function expectValid(doc: unknown, kind: "feature.json" | "featurecollection.json") {
  for (const name of [kind, "jsonfg-root-object.json"]) {
    const validate = schema(name);
    const valid = validate(doc);
    expect(validate.errors ?? [], `${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toEqual([]);
    expect(valid).toBe(true);
  }
}

const PATHS = [
  "/api/ogc/collections/location-proofs/items",
  "/api/ogc/collections/location-proof-shapes/items",
];
const CORE = "http://www.opengis.net/spec/json-fg-1/1.0/conf/core";
const EPSG27700 = "http://www.opengis.net/def/crs/EPSG/0/27700";
type Fg = {
  id: string;
  featureType: string;
  time: { timestamp: string } | null;
  geometry: unknown;
  place: unknown;
};

describe("JSON-FG items", () => {
  for (const path of PATHS) {
    it(`${path.split("/")[4]}: f=jsonfg validates; featureType, time, place null, geometry as in GeoJSON`, async () => {
      const geojson = await app.get(`${path}?limit=100&sortby=uid`);
      const res = await app.get(`${path}?limit=100&sortby=uid&f=jsonfg`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/geo\+json/);
      expect(res.headers.get("link")).toBe(
        '<http://www.opengis.net/def/profile/OGC/0/jsonfg>; rel="profile"',
      );
      expectValid(res.body, "featurecollection.json");
      expect(res.body.conformsTo).toEqual([CORE]);
      expect(res.body.coordRefSys).toBeUndefined();
      let untimed = 0;
      res.body.features.forEach((f: Fg, i: number) => {
        const g = geojson.body.features[i];
        expect(f.id).toBe(g.id);
        expect(f.featureType).toBe("LocationProof");
        expect(f.geometry).toEqual(g.geometry);
        expect(f.place).toBeNull();
        const at = g.properties.event_timestamp;
        expect(f.time).toEqual(at === null ? null : { timestamp: at });
        if (at === null) untimed++;
      });
      expect(untimed).toBeGreaterThan(0);
    });

    it(`${path.split("/")[4]}: with crs=EPSG:27700, place in that system beside the CRS84 geometry (jsonfg-plus)`, async () => {
      const res = await app.get(`${path}?limit=100&f=jsonfg&crs=${encodeURIComponent(EPSG27700)}`);
      expect(res.status).toBe(200);
      expectValid(res.body, "featurecollection.json");
      expect(res.body.coordRefSys).toBe(EPSG27700);
      expect(res.headers.get("content-crs")).toBe(`<${EPSG27700}>`);
      expect(res.headers.get("link")).toContain("/profile/OGC/0/jsonfg-plus>");
      const system = crsByName(EPSG27700)!;
      for (const f of res.body.features as Fg[]) {
        expect(f.place).toEqual(f.geometry === null ? null : geometryTo(f.geometry as never, system));
      }
    });
  }

  it("is also asked for by profile=jsonfg and by the drafts' media types in Accept; profile=rfc7946 is GeoJSON", async () => {
    const [path] = PATHS;
    const byProfile = await app.get(`${path}?limit=5&profile=jsonfg`);
    expect(byProfile.body.conformsTo).toEqual([CORE]);
    const byAccept = await app.get(`${path}?limit=5`, { headers: { accept: "application/vnd.ogc.fg+json" } });
    expect(byAccept.body.conformsTo).toEqual([CORE]);
    const plain = await app.get(`${path}?limit=5&profile=rfc7946`);
    expect(plain.body.conformsTo).toBeUndefined();
    expect(plain.headers.get("link")).toBe(
      '<http://www.opengis.net/def/profile/OGC/0/rfc7946>; rel="profile"',
    );
    expect((await app.get(`${path}?profile=geojson`)).status).toBe(400);
    const links = byProfile.body.links.map((l: { title: string; href: string }) => [l.title, l.href]);
    expect(links).toContainEqual(["GeoJSON", expect.stringContaining("f=json")]);
  });

  it("a page's features are the single items' (what PostgreSQL writes equals what the function writes)", async () => {
    for (const path of PATHS) {
      const page = await app.get(`${path}?limit=30&f=jsonfg`);
      for (const f of page.body.features) {
        const one = await app.get(`${path}/${f.id}?f=jsonfg`);
        expectValid(one.body, "feature.json");
        const { links: _l, conformsTo, ...feature } = one.body;
        expect(conformsTo).toEqual([CORE]);
        expect(feature).toEqual(f);
      }
    }
  });
});

describe("JSON-FG single items", () => {
  it("in EPSG:27700: place transformed, geometry CRS84, coordRefSys on the feature", async () => {
    const row = rows.find((r) => r.geometry && r.geometry.type !== "Point")!;
    for (const path of PATHS) {
      const res = await app.get(`${path}/${row.uid}?f=jsonfg&crs=${encodeURIComponent(EPSG27700)}`);
      expect(res.status).toBe(200);
      expectValid(res.body, "feature.json");
      expect(res.body.coordRefSys).toBe(EPSG27700);
      expect(res.body.place).toEqual(geometryTo(res.body.geometry, crsByName(EPSG27700)!));
      expect(res.body.place).not.toEqual(res.body.geometry);
    }
  });
});
