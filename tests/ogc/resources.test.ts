import { describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { CONFORMANCE_CLASSES } from "../../lib/ogc/conformance.js";
import { appWith, TEST_BASE, type TestApp } from "../helpers/app.js";

let app: TestApp;
const rows = sampleProofs({ count: 60, seed: 11, now: new Date("2025-06-01T00:00:00Z") });

appWith(rows, (a) => {
  app = a;
});

const rels = (links: { rel: string; type?: string }[]) =>
  links.map((l) => `${l.rel} ${l.type ?? ""}`.trim()).sort();

describe("landing page", () => {
  it("links self, alternate, service-desc, service-doc, conformance, data and the tile matrix sets, all absolute", async () => {
    const res = await app.get("/api/ogc");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body.title).toMatch(/OGC API/);
    expect(rels(res.body.links)).toEqual(
      [
        "alternate text/html",
        "conformance application/json",
        "data application/json",
        "self application/json",
        "service-desc application/vnd.oai.openapi+json;version=3.0",
        "service-doc text/html",
        "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes application/json",
        "describedby application/json",
        "http://www.opengis.net/def/rel/ogc/1.0/styles application/json",
        "stylesheet application/vnd.mapbox.style+json",
      ].sort(),
    );
    const href = (rel: string) => res.body.links.find((l: { rel: string }) => l.rel === rel).href;
    expect(href("self")).toBe(`${TEST_BASE}/api/ogc`);
    expect(href("service-desc")).toBe(`${TEST_BASE}/api/ogc/api`);
    expect(href("conformance")).toBe(`${TEST_BASE}/api/ogc/conformance`);
    expect(href("data")).toBe(`${TEST_BASE}/api/ogc/collections`);
    for (const link of res.body.links) {
      const target = await app.get(link.href.replace(TEST_BASE, ""));
      expect(target.status, link.href).toBe(200);
    }
  });

  it("builds links from forwarded headers behind a proxy", async () => {
    const res = await app.get("/api/ogc", {
      headers: { "x-forwarded-host": "maps.example.org", "x-forwarded-proto": "https" },
    });
    expect(res.body.links[0].href).toBe("https://maps.example.org/api/ogc");
  });

  it("weighs Accept by q: q=0 refuses a type, a higher q wins, equal q goes to the first listed", async () => {
    const typeFor = async (accept: string) =>
      (await app.request("/api/ogc", { headers: { accept } })).headers.get("content-type");
    expect(await typeFor("text/html;q=0, application/json")).toMatch(/^application\/json/);
    expect(await typeFor("text/html;q=0")).toMatch(/^application\/json/);
    expect(await typeFor("text/html, application/json;q=0")).toMatch(/^text\/html/);
    expect(await typeFor("application/json;q=0.5, text/html")).toMatch(/^text\/html/);
    expect(await typeFor("text/html;q=0.4, application/json;q=0.9")).toMatch(/^application\/json/);
    expect(await typeFor("application/json, text/html")).toMatch(/^application\/json/);
    expect(await typeFor("text/html, application/json")).toMatch(/^text\/html/);
    expect(await typeFor("*/*")).toMatch(/^application\/json/);
  });

  it("serves HTML for f=html and for a browser's Accept header; f=json wins over Accept", async () => {
    const html = await app.get("/api/ogc?f=html");
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(html.body).toContain("<!doctype html>");
    const browser = await app.get("/api/ogc", {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    expect(browser.headers.get("content-type")).toMatch(/^text\/html/);
    const forced = await app.get("/api/ogc?f=json", { headers: { accept: "text/html" } });
    expect(forced.headers.get("content-type")).toMatch(/^application\/json/);
    const bad = await app.get("/api/ogc?f=xml");
    expect(bad).toMatchObject({ status: 400, body: { code: "InvalidParameterValue" } });
  });
});

describe("conformance", () => {
  it("declares exactly the implemented classes, with real OGC URIs", async () => {
    const res = await app.get("/api/ogc/conformance");
    expect(res.status).toBe(200);
    expect(res.body.conformsTo).toEqual([...CONFORMANCE_CLASSES]);
    for (const uri of res.body.conformsTo) {
      expect(uri).toMatch(
        /^http:\/\/www\.opengis\.net\/spec\/(ogcapi-features-[1235]\/1\.0|json-fg-1\/1\.0|cql2\/1\.0|ogcapi-tiles-1\/1\.0)\/conf\/[a-z0-9-]+$/,
      );
    }
    expect(res.body.conformsTo).toContain("http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core");
    expect(res.body.conformsTo).toContain("http://www.opengis.net/spec/cql2/1.0/conf/cql2-json");
    // Exact on every geometry of both collections (PostGIS), and the standard's test annex passes
    // (tests/ogc/cql2-annex.test.ts): declared.
    for (const c of ["basic-spatial-functions", "basic-spatial-functions-plus", "spatial-functions"])
      expect(res.body.conformsTo).toContain(`http://www.opengis.net/spec/cql2/1.0/conf/${c}`);
    // No custom function is served.
    expect(res.body.conformsTo).not.toContain("http://www.opengis.net/spec/cql2/1.0/conf/functions");
  });
});

describe("collections", () => {
  it("lists location-proofs and location-proof-shapes with items, queryables, crs and an extent computed from the data", async () => {
    const res = await app.get("/api/ogc/collections");
    expect(res.status).toBe(200);
    expect(rels(res.body.links)).toEqual(["alternate text/html", "self application/json"]);
    expect(res.body.collections.map((c: { id: string }) => c.id)).toEqual([
      "location-proofs",
      "location-proof-shapes",
    ]);
    const shapes = res.body.collections[1];
    expect(shapes.itemType).toBe("feature");
    expect(shapes.links.find((l: { rel: string }) => l.rel === "items").href).toBe(
      `${TEST_BASE}/api/ogc/collections/location-proof-shapes/items`,
    );
    const c = res.body.collections[0];
    expect(c.id).toBe("location-proofs");
    expect(shapes.extent).toEqual(c.extent);
    expect(c.itemType).toBe("feature");
    expect(c.crs[0]).toBe("http://www.opengis.net/def/crs/OGC/1.3/CRS84");
    expect(c.crs).toContain("http://www.opengis.net/def/crs/EPSG/0/27700");
    expect(c.storageCrs).toBe("http://www.opengis.net/def/crs/OGC/1.3/CRS84");
    const withBounds = rows.filter((r) => r.minLon !== null);
    expect(c.extent.spatial.bbox[0]).toEqual([
      Math.min(...withBounds.map((r) => r.minLon!)),
      Math.min(...withBounds.map((r) => r.minLat!)),
      Math.max(...withBounds.map((r) => r.maxLon!)),
      Math.max(...withBounds.map((r) => r.maxLat!)),
    ]);
    const times = rows.map((r) => r.eventTimestamp!.getTime());
    expect(c.description).toMatch(/representative point/);
    expect(c.extent.temporal.interval[0]).toEqual([
      new Date(Math.min(...times)).toISOString(),
      new Date(Math.max(...times)).toISOString(),
    ]);
  });

  it("describes the collection with self, alternate, items (GeoJSON), queryables and vector tiles links", async () => {
    const res = await app.get("/api/ogc/collections/location-proofs");
    expect(res.status).toBe(200);
    expect(rels(res.body.links)).toEqual([
      "alternate text/html",
      "describedby application/json",
      "enclosure application/flatgeobuf",
      "enclosure application/geo+json-seq",
      "enclosure application/vnd.apache.parquet",
      "enclosure text/csv",
      "http://www.opengis.net/def/rel/ogc/1.0/queryables application/schema+json",
      "http://www.opengis.net/def/rel/ogc/1.0/schema application/schema+json",
      "http://www.opengis.net/def/rel/ogc/1.0/sortables application/schema+json",
      "http://www.opengis.net/def/rel/ogc/1.0/styles application/json",
      "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector application/json",
      "items application/geo+json",
      "items text/html",
      "self application/json",
      "stylesheet application/vnd.mapbox.style+json",
    ]);
    expect(res.body.links.find((l: { rel: string }) => l.rel === "items").href).toBe(
      `${TEST_BASE}/api/ogc/collections/location-proofs/items`,
    );
    // The whole collection as a download, one link per format (issue 37).
    expect(res.body.links.find((l: { type: string }) => l.type === "text/csv").href).toBe(
      `${TEST_BASE}/api/ogc/collections/location-proofs/items?f=csv`,
    );
  });

  it("answers an unknown collection with a JSON 404", async () => {
    const res = await app.get("/api/ogc/collections/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body.code).toBe("NotFound");
    const items = await app.get("/api/ogc/collections/nope/items");
    expect(items.status).toBe(404);
  });
});

describe("queryables", () => {
  it("is a JSON Schema of the filterable properties", async () => {
    const res = await app.get("/api/ogc/collections/location-proofs/queryables");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/schema\+json/);
    expect(res.body.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(res.body.$id).toBe(`${TEST_BASE}/api/ogc/collections/location-proofs/queryables`);
    expect(res.body.type).toBe("object");
    for (const p of [
      "geometry",
      "chain",
      "prover",
      "subject",
      "event_timestamp",
      "revoked",
      "location_type",
      "srs",
    ]) {
      expect(res.body.properties).toHaveProperty(p);
    }
    expect(res.body.properties.event_timestamp).toMatchObject({ type: "string", format: "date-time" });
    expect(res.body.properties.geometry.format).toBe("geometry-point");
    const shapes = await app.get("/api/ogc/collections/location-proof-shapes/queryables");
    expect(shapes.status).toBe(200);
    expect(shapes.body.$id).toBe(`${TEST_BASE}/api/ogc/collections/location-proof-shapes/queryables`);
    expect(shapes.body.properties.geometry.format).toBe("geometry-any");
    expect(Object.keys(shapes.body.properties)).toEqual(Object.keys(res.body.properties));
  });
});

describe("OpenAPI", () => {
  it("is OpenAPI 3.0 JSON, with path keys relative to the server URL and the items parameters declared", async () => {
    const res = await app.get("/api/ogc/api");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/vnd\.oai\.openapi\+json;version=3\.0/);
    expect(res.body.openapi).toMatch(/^3\.0\./);
    expect(res.body.servers[0].url).toBe(`${TEST_BASE}/api/ogc`);
    const keys = Object.keys(res.body.paths);
    for (const id of ["location-proofs", "location-proof-shapes"]) {
      for (const tail of ["", "/queryables", "/items", "/items/{featureId}"])
        expect(keys).toContain(`/collections/${id}${tail}`);
    }
    expect(keys.every((k) => !k.startsWith("/api/"))).toBe(true);
    const items = res.body.paths["/collections/location-proofs/items"].get;
    const names = items.parameters.map((p: { name: string }) => p.name);
    // GDAL reads the page size from here (/req/core/fc-limit-definition).
    expect(items.parameters.find((p: { name: string }) => p.name === "limit").schema).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 1000,
      default: 10,
    });
    expect(
      res.body.paths["/collections/location-proof-shapes/items"].get.parameters.map(
        (p: { name: string }) => p.name,
      ),
    ).toEqual(names);
    // One catalogue: the parameters are the validators' (lib/ogc/items-params.ts), each described, in their order,
    // with the collection's own words filled in.
    const { ITEMS_PARAMS } = await import("../../lib/ogc/items-params.js");
    expect(names).toEqual(Object.keys(ITEMS_PARAMS));
    type Param = { name: string; description: string; schema: Record<string, unknown>; style?: string };
    const shapes = res.body.paths["/collections/location-proof-shapes/items"].get.parameters as Param[];
    for (const p of [...(items.parameters as Param[]), ...shapes]) {
      expect(p.description, p.name).toMatch(/\w/);
      expect(p.description, p.name).not.toMatch(/\{(geometry|collectionId)\}/);
      if (p.schema.type === "array") expect(p.style, p.name).toBe("form");
    }
    const bbox = (list: Param[]) => list.find((p) => p.name === "bbox")!;
    expect(bbox(items.parameters).description).toContain("the feature's point");
    expect(bbox(shapes).description).toContain("the bounds of the feature's geometry");
    expect(bbox(items.parameters).schema).toEqual({
      type: "array",
      minItems: 4,
      maxItems: 6,
      items: { type: "number" },
    });
    const schemas = res.body.components.schemas;
    expect(schemas.featureLocationProofs.properties.geometry.$ref).toBe("#/components/schemas/pointGeometry");
    expect(schemas.featureLocationProofShapes.properties.geometry.$ref).toBe(
      "#/components/schemas/shapeGeometry",
    );
    expect(Object.keys(schemas.properties.properties)).toContain("event_timestamp");
    expect(schemas.properties.properties).not.toHaveProperty("geometry");
    expect(schemas.properties.properties.event_timestamp).toMatchObject({
      type: "string",
      format: "date-time",
      nullable: true,
    });
    const standard = ["limit", "offset", "bbox", "datetime", "filter", "filter-lang", "sortby", "f"];
    for (const n of [...standard, "chain", "prover", "subject"]) expect(names).toContain(n);
    const html = await app.get("/api/ogc/api?f=html");
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(html.body).toContain("/collections/location-proofs/items");
  });
});

describe("single feature", () => {
  it("returns the feature with self, alternate and collection links", async () => {
    const row = rows.find((r) => r.geometry?.type === "Point")!;
    const res = await app.get(`/api/ogc/collections/location-proofs/items/${row.uid}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/geo\+json/);
    expect(res.body.type).toBe("Feature");
    expect(res.body.id).toBe(row.uid);
    expect(res.body.geometry).toEqual({ type: "Point", coordinates: [row.longitude, row.latitude] });
    expect(res.body.properties).toMatchObject({
      chain: row.chain,
      prover: row.prover,
      subject: row.subject,
      event_timestamp: row.eventTimestamp!.toISOString(),
      location_type: row.locationType,
      srs: row.srs,
      revoked: row.revoked,
    });
    expect(rels(res.body.links)).toEqual([
      "alternate application/geo+json",
      "alternate text/html",
      "collection application/json",
      "self application/geo+json",
    ]);
    expect(res.body.links.find((l: { title: string }) => l.title === "JSON-FG").href).toBe(
      `${TEST_BASE}/api/ogc/collections/location-proofs/items/${row.uid}?f=jsonfg`,
    );
    expect(res.body.links.find((l: { rel: string }) => l.rel === "self").href).toBe(
      `${TEST_BASE}/api/ogc/collections/location-proofs/items/${row.uid}`,
    );
  });

  it("has a null geometry when the proof has no valid geographic data", async () => {
    const row = rows.find((r) => r.geometry === null)!;
    const res = await app.get(`/api/ogc/collections/location-proofs/items/${row.uid}`);
    expect(res.body.geometry).toBeNull();
  });

  it("answers unknown and malformed ids with 404", async () => {
    const unknown = await app.get(`/api/ogc/collections/location-proofs/items/0x${"ab".repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("NotFound");
    const malformed = await app.get("/api/ogc/collections/location-proofs/items/not-a-uid");
    expect(malformed.status).toBe(404);
  });

  it("echoes a requested id in the 404 only when it is a well-formed uid", async () => {
    const uid = `0x${"AB".repeat(32)}`;
    const unknown = await app.get(`/api/ogc/collections/location-proofs/items/${uid}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.description).toContain(uid.toLowerCase());
    const hostile = "x' OR '1'='1";
    const res = await app.get(`/api/ogc/collections/location-proofs/items/${encodeURIComponent(hostile)}`);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain("OR");
    expect(res.body.description).toBe("No feature with that id in collection location-proofs");
  });

  it("renders HTML with a map and a restrictive CSP", async () => {
    const row = rows[0]!;
    const res = await app.get(`/api/ogc/collections/location-proofs/items/${row.uid}?f=html`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.body).toContain('id="map"');
    expect(res.body).toContain(row.uid);
  });
});

describe("HTML pages", () => {
  it.each([
    "/api/ogc",
    "/api/ogc/conformance",
    "/api/ogc/collections",
    "/api/ogc/collections/location-proofs",
    "/api/ogc/collections/location-proofs/items",
    "/api/ogc/collections/location-proofs/queryables",
    "/api/ogc/collections/location-proof-shapes",
    "/api/ogc/collections/location-proof-shapes/items",
    "/api/ogc/collections/location-proof-shapes/queryables",
    "/api/ogc/api",
  ])("renders %s as HTML, escaping data", async (path) => {
    const res = await app.get(`${path}?f=html`);
    expect(res.status, path).toBe(200);
    expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy"), path).toMatch(/script-src 'self'/);
    expect(res.body, path).not.toMatch(/<script>(?!<)/);
  });

  it("serves Leaflet, the basemap and our own CSS and scripts from our own origin", async () => {
    for (const [file, type] of [
      ["leaflet.js", /javascript/],
      ["leaflet.css", /css/],
      ["map.js", /javascript/],
      ["site.css", /css/],
      ["site.js", /javascript/],
      ["topojson-client.js", /javascript/],
      ["countries-110m.json", /application\/json/],
      ["countries-50m.json", /application\/json/],
    ] as const) {
      const res = await app.request(`/api/ogc/assets/${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get("content-type"), file).toMatch(type);
      expect((await res.text()).length).toBeGreaterThan(100);
    }
    expect((await app.get("/api/ogc/assets/..%2Fpackage.json")).status).toBe(404);
    expect((await app.get("/api/ogc/assets/nope.js")).status).toBe(404);
  });
});
