import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateStyleMin } from "@maplibre/maplibre-gl-style-spec";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { appWith, ROOT, TEST_BASE, type TestApp } from "../helpers/app.js";

// For web maps: the tileset's TileJSON 3.0.0 (validated against the TileJSON 3.0.0 schema, tests/data/tilejson/) and
// the MapLibre style of the clusters and points, served as OGC API - Styles core (validated with MapLibre's own style
// spec); the landing page, the collection and the tileset link them.

let app: TestApp;
appWith(sampleProofs({ count: 50, seed: 3, now: new Date("2025-06-01T00:00:00Z") }), (a) => {
  app = a;
});

const BASE = "/api/ogc/collections/location-proofs";
const TILEJSON = `${BASE}/tiles/WebMercatorQuad/tilejson`;
const tileJsonSchema = JSON.parse(readFileSync(join(ROOT, "tests/data/tilejson/schema-3.0.0.json"), "utf8"));

describe("TileJSON", () => {
  it("validates against TileJSON 3.0.0 and names the tiles the tileset names, with its filters", async () => {
    const res = await app.get(`${TILEJSON}?chain=base`);
    expect(res.status).toBe(200);
    const validate = new Ajv({ strict: false, allErrors: true }).compile(tileJsonSchema);
    expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
    expect(res.body.tilejson).toBe("3.0.0");
    // The tile URLs carry the data version (lib/data-version/tile-version.ts).
    expect(res.body.tiles).toHaveLength(1);
    const [template, version] = res.body.tiles[0].split("&v=");
    expect(template).toBe(`${TEST_BASE}${BASE}/tiles/WebMercatorQuad/{z}/{x}/{y}?chain=base`);
    expect(version).toMatch(/^[1-9]\d*$/);
    expect(res.body.vector_layers.map((l: { id: string }) => l.id)).toEqual([
      "location-proofs",
      "location-proof-clusters",
    ]);
    const tile = await app.request(res.body.tiles[0].replace(TEST_BASE, "").replace("{z}/{x}/{y}", "0/0/0"));
    expect(tile.status).toBe(200);
    expect(validate({ tiles: [] })).toBe(false);
    expect((await app.get(`${BASE}/tiles/WorldCRS84Quad/tilejson`)).status).toBe(404);
  });
});

describe("styles", () => {
  it("the collection's styles name the default style, whose style sheet validates with MapLibre's style spec", async () => {
    const list = await app.get(`${BASE}/styles`);
    expect(list.status).toBe(200);
    expect(list.body.default).toBe("proofs");
    const sheet = list.body.styles[0].links.find((l: { rel: string }) => l.rel === "stylesheet");
    expect(sheet.type).toBe("application/vnd.mapbox.style+json");
    const res = await app.get(sheet.href.replace(TEST_BASE, ""));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/vnd\.mapbox\.style\+json/);
    expect(validateStyleMin(res.body)).toEqual([]);
    expect(res.body.layers.map((l: { id: string }) => l.id)).toEqual(["clusters", "points"]);
    expect(res.body.sources.proofs.url).toBe(`${TEST_BASE}${TILEJSON}`);
    // The validator can fail: a layer on a missing source is an error.
    expect(validateStyleMin({ ...res.body, sources: {} }).length).toBeGreaterThan(0);
    expect((await app.get(`${BASE}/styles/dark`)).status).toBe(404);
  });

  it("a filtered style draws the filter: its source is the filtered TileJSON", async () => {
    const res = await app.get(`${BASE}/styles/proofs?chain=base`);
    expect(res.body.sources.proofs.url).toBe(`${TEST_BASE}${TILEJSON}?chain=base`);
  });
});

describe("links", () => {
  it("the landing page, the collection and the tileset link the TileJSON, the styles and the style sheet", async () => {
    for (const path of ["/api/ogc", BASE, `${BASE}/tiles/WebMercatorQuad`]) {
      const links = (await app.get(path)).body.links.map((l: { href: string }) => l.href.split("?")[0]);
      expect(links, path).toContain(`${TEST_BASE}${TILEJSON}`);
      expect(links, path).toContain(`${TEST_BASE}${BASE}/styles`);
      expect(links, path).toContain(`${TEST_BASE}${BASE}/styles/proofs`);
    }
  });
});
