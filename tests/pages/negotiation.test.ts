import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDatabase } from "../../db/client.js";
import { ConfigError, loadConfig, setConfig } from "../../lib/config.js";
import { createRouter } from "../../lib/local/router.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, ROOT, type TestApp } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";

/**
 * Content negotiation of the pages a person opens (the root and the native list; the OGC resources share the same
 * rule, lib/http/format.ts): JSON for API clients, HTML for a browser or with f=html; errors asked for as HTML are
 * pages with the same status, headers and message; the HTML settings (basemap tiles, licence, contact) are checked
 * and reach the pages and their Content-Security-Policy. What the pages look like is tests/browser/.
 */
let app: TestApp;
const rows = sampleProofs({ count: 40, seed: 12 });
/** What Chromium sends when it navigates. */
const BROWSER =
  "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, rows);
});
afterAll(() => app?.close());

const fetchAs = (path: string, accept?: string, init: RequestInit = {}) =>
  app.request(path, { ...init, headers: accept ? { accept } : {} });

describe("the root and the native list: JSON for API clients, HTML for a browser", () => {
  it.each(["/", "/api/v0/location-proofs"])("%s", async (path) => {
    for (const accept of [undefined, "*/*", "application/json", "application/json, text/html", "text/*"]) {
      const res = await fetchAs(path, accept);
      expect(res.status, `${accept}`).toBe(200);
      expect(res.headers.get("content-type"), `${accept}`).toMatch(/^application\/json/);
      expect(res.headers.get("vary")).toMatch(/\bAccept\b/);
      await res.json();
    }
    for (const [accept, query] of [
      [BROWSER, ""],
      ["text/html", ""],
      [undefined, "?f=html"],
      ["application/json", "?f=html"],
    ] as const) {
      const res = await fetchAs(`${path}${query}`, accept);
      expect(res.status, `${accept} ${query}`).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'; script-src 'self'/);
      expect(res.headers.get("vary")).toMatch(/\bAccept\b/);
      expect(res.headers.get("cache-control")).toMatch(/s-maxage=15/);
      expect(await res.text()).toMatch(/^<!doctype html>/);
    }
    const json = await fetchAs(`${path}?f=json`, BROWSER);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("the root page shows live counts from the database and links to the map, the list and the docs", async () => {
    const html = await (await fetchAs("/", BROWSER)).text();
    const revoked = rows.filter((r) => r.revoked).length;
    expect(html).toContain(`<b>${rows.length}</b><span>location proofs</span>`);
    expect(html).toContain(`<b>${revoked}</b><span>revoked</span>`);
    for (const href of [
      "/api/ogc/collections/location-proofs/items?f=html&amp;limit=100",
      "/api/v0/location-proofs?f=html",
      "/docs",
      "http://localhost:3000/api/ogc",
    ]) {
      expect(html).toContain(`href="${href}"`);
    }
  });

  it("the list page is the JSON page as a table: same proofs, the position, links that keep the filters", async () => {
    const path = "/api/v0/location-proofs?chain=base,celo&limit=5&offset=5";
    const data = (await (await fetchAs(path)).json()) as {
      data: { uid: string }[];
      pagination: { total: number; next: string };
    };
    const html = await (await fetchAs(path, BROWSER)).text();
    const uids = [...html.matchAll(/<a class="uid" href="[^"]+" title="(0x[0-9a-f]{64})">/g)].map(
      (m) => m[1],
    );
    expect(uids).toEqual(data.data.map((p) => p.uid));
    expect(html).toContain(`6–10 of ${data.pagination.total} proofs`);
    expect(html).toContain(`href="${data.pagination.next.replace(/&/g, "&amp;")}"`);
    // The page-size form keeps the other parameters and starts again from the first page.
    expect(html).toContain('<input type="hidden" name="chain" value="base,celo">');
    expect(html).not.toMatch(/name="offset"/);
    expect(html).toContain("Filtered by <code>chain=base,celo</code>");
  });

  it("f takes json or html (the list also its download formats); anything else is a 400 naming f, a page for a browser", async () => {
    const api = await app.get("/api/v0/location-proofs?f=xml");
    expect(api.status).toBe(400);
    expect(api.body).toMatchObject({
      parameter: "f",
      message: "f must be one of json, html, csv, geojsonseq, fgb, parquet",
    });
    const page = await fetchAs("/?f=xml", BROWSER);
    expect(page.status).toBe(400);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("f must be json or html");
  });
});

describe("errors asked for as HTML", () => {
  it("a 404 is a page with the same message and a link home; API clients still get JSON", async () => {
    const page = await fetchAs("/api/v1/location-proofs", BROWSER);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self'/);
    const html = await page.text();
    expect(html).toContain('<p class="message">Cannot GET /api/v1/location-proofs</p>');
    expect(html).toContain('href="/">Go to the home page</a>');
    const api = await app.get("/api/v1/location-proofs", { headers: { accept: "*/*" } });
    expect(api.status).toBe(404);
    expect(api.body.message).toBe("Cannot GET /api/v1/location-proofs");
  });

  it("a 400 names the parameter, escaped; f=html asks for the page as Accept does", async () => {
    const page = await fetchAs("/api/ogc/collections/location-proofs/items?f=html&limit=0");
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain('<p class="message">limit must be at least 1</p>');
    expect(html).toContain("<code>limit</code>");
    const hostile = await fetchAs("/api/v0/location-proofs?%3Cscript%3E=1", BROWSER);
    expect(hostile.status).toBe(400);
    const text = await hostile.text();
    expect(text).toContain("&lt;script&gt;");
    expect(text).not.toContain("<script>");
  });

  it("the status and the headers that matter stay: 405 keeps Allow", async () => {
    const page = await fetchAs("/api/v0/config", BROWSER, { method: "PUT" });
    expect(page.status).toBe(405);
    expect(page.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("Method PUT is not allowed here");
  });
});

describe("without a database", () => {
  it("the root page still renders and says the counts are unavailable; the list is a 503 page naming the setting", async () => {
    const router = recordingRouter(createRouter(ROOT));
    setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0", VERCEL: "1" }));
    setDatabase(undefined);
    try {
      const root = await router.handle(new Request("http://localhost/", { headers: { accept: BROWSER } }));
      expect(root.status).toBe(200);
      expect(await root.text()).toContain("Live counts are unavailable right now");
      const list = await router.handle(
        new Request("http://localhost/api/v0/location-proofs", { headers: { accept: BROWSER } }),
      );
      expect(list.status).toBe(503);
      expect(await list.text()).toContain("DATABASE_URL is required on Vercel");
    } finally {
      setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
      setDatabase(app.handle);
    }
  });
});

describe("HTML settings", () => {
  const base = { LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" };
  const tiles = {
    BASEMAP_TILE_URL: "https://tile.example.org/{z}/{x}/{y}.png",
    BASEMAP_ATTRIBUTION: "© Example & contributors",
  };

  it("BASEMAP_TILE_URL and BASEMAP_ATTRIBUTION are checked together; the origin is the template's", () => {
    expect(loadConfig({ ...base, ...tiles }).basemapTiles).toEqual({
      url: tiles.BASEMAP_TILE_URL,
      origin: "https://tile.example.org",
      attribution: tiles.BASEMAP_ATTRIBUTION,
    });
    expect(loadConfig(base).basemapTiles).toBeUndefined();
    const refused: [Record<string, string>, string][] = [
      [{ BASEMAP_TILE_URL: tiles.BASEMAP_TILE_URL }, "BASEMAP_ATTRIBUTION"],
      [{ BASEMAP_ATTRIBUTION: "x" }, "BASEMAP_ATTRIBUTION"],
      [{ ...tiles, BASEMAP_TILE_URL: "https://{s}.tile.example.org/{z}/{x}/{y}.png" }, "BASEMAP_TILE_URL"],
      [{ ...tiles, BASEMAP_TILE_URL: "https://tile.example.org/{z}/{x}.png" }, "BASEMAP_TILE_URL"],
      [{ ...tiles, BASEMAP_TILE_URL: "ftp://tile.example.org/{z}/{x}/{y}.png" }, "BASEMAP_TILE_URL"],
      [{ ...tiles, BASEMAP_ATTRIBUTION: "<b>x</b>" }, "BASEMAP_ATTRIBUTION"],
      [{ SERVICE_CONTACT_URL: "javascript:alert(1)" }, "SERVICE_CONTACT_URL"],
      [{ DATA_LICENSE: "<script>" }, "DATA_LICENSE"],
    ];
    for (const [env, setting] of refused) {
      let error: unknown;
      try {
        loadConfig({ ...base, ...env });
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(env)).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).settings).toContain(setting);
    }
  });

  it("tiles reach the maps' configuration and the CSP allows images and fetches from that origin only", async () => {
    setConfig(loadConfig({ ...base, ...tiles }));
    try {
      const configOf = async (path: string, id: string) => {
        const res = await fetchAs(path);
        const csp = res.headers.get("content-security-policy")!;
        expect(csp).toContain("img-src 'self' data: https://tile.example.org;");
        // The map of every proof fetches its raster tiles (MapLibre GL JS); Leaflet loads them as images.
        expect(csp).toContain("connect-src 'self' https://tile.example.org;");
        expect(csp.match(/https?:\/\//g)).toHaveLength(2);
        const block = new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`).exec(
          await res.text(),
        );
        return JSON.parse(block![1]!);
      };
      const leaflet = await configOf("/api/ogc/collections/location-proof-shapes/items?f=html", "map-config");
      expect(leaflet.tiles).toEqual({ url: tiles.BASEMAP_TILE_URL, attribution: tiles.BASEMAP_ATTRIBUTION });
      const tileMap = await configOf("/api/ogc/collections/location-proofs/items?f=html", "tile-map-config");
      expect(tileMap.basemap).toEqual({
        url: tiles.BASEMAP_TILE_URL,
        attribution: tiles.BASEMAP_ATTRIBUTION,
      });
    } finally {
      setConfig(loadConfig(base));
    }
    const plain = await fetchAs("/api/ogc/collections/location-proofs/items?f=html");
    expect(plain.headers.get("content-security-policy")).toContain("img-src 'self' data:;");
  });

  it("the footer shows the licence (linked when it has a URL) and the contact", async () => {
    setConfig(
      loadConfig({
        ...base,
        DATA_LICENSE: "ODbL 1.0 https://opendatacommons.org/licenses/odbl/1-0/",
        SERVICE_CONTACT_URL: "https://example.org/contact?a=1&b=2",
      }),
    );
    try {
      const html = await (await fetchAs("/", BROWSER)).text();
      expect(html).toContain(
        'Data licence: <a href="https://opendatacommons.org/licenses/odbl/1-0/" rel="license">ODbL 1.0</a>',
      );
      expect(html).toContain('<a href="https://example.org/contact?a=1&amp;b=2">Contact</a>');
      setConfig(loadConfig({ ...base, DATA_LICENSE: "Public domain" }));
      expect(await (await fetchAs("/", BROWSER)).text()).toContain("Data licence: Public domain");
    } finally {
      setConfig(loadConfig(base));
    }
    expect(await (await fetchAs("/", BROWSER)).text()).not.toContain("Data licence");
  });
});
