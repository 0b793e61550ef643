import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, setConfig } from "../../lib/config.js";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import {
  DESKTOP,
  horizontalOverflow,
  mapReady,
  PHONE,
  screenshot,
  siteForSuite,
  type Viewport,
} from "./chromium.js";

/**
 * The pages as a person sees them, in headless Chromium at 1280×800 and 390×844, opened as a browser opens them
 * (its own Accept header, no f=html): the root, the native list, the OGC landing, collection, items and item pages
 * and an error page. Each is screenshotted (SCREENSHOT_DIR, default artifacts/screenshots) and checked: no console
 * error or CSP violation, no sideways scroll on a phone, the basemap's country outlines drawn under the features,
 * a popup that fits in the map and links to the proof, readable tables, and the way from / to the map.
 */
const rows = sampleProofs({ count: 120, seed: 9 });
const point = rows.find((r) => r.geometry?.type === "Point" && r.memo)!;
const items = "/api/ogc/collections/location-proofs/items";
const site = siteForSuite(rows, {
  DATA_LICENSE: "CC BY 4.0 https://creativecommons.org/licenses/by/4.0/",
  SERVICE_CONTACT_URL: "mailto:operator@example.org",
});

type PageCase = { name: string; path: string; map: boolean; status?: number };
const PAGES: PageCase[] = [
  { name: "root", path: "/", map: false },
  { name: "proofs-list", path: "/api/v0/location-proofs?limit=20", map: false },
  { name: "ogc-landing", path: "/api/ogc", map: false },
  { name: "ogc-collections", path: "/api/ogc/collections", map: false },
  { name: "collection", path: "/api/ogc/collections/location-proofs", map: true },
  { name: "items", path: `${items}?limit=50`, map: true },
  { name: "item", path: `${items}/${point.uid}`, map: true },
  { name: "shapes-items", path: "/api/ogc/collections/location-proof-shapes/items?limit=100", map: true },
  { name: "error-404", path: "/no/such/page", map: false, status: 404 },
];

/**
 * The country outlines are drawn, under the features: in a pane under the features' (Leaflet), or as style layers
 * under the proofs' (the map of every proof, MapLibre GL JS, which says its layers in data-layers).
 */
async function basemapUnderFeatures(page: Page) {
  if (await page.locator("#map.maplibregl-map").count()) {
    const layers = ((await page.locator("#map").getAttribute("data-layers")) ?? "").split(",");
    const countries = Number(await page.locator("#map").getAttribute("data-countries"));
    return {
      countries,
      below: layers.indexOf("land") >= 0 && layers.indexOf("land") < layers.indexOf("points"),
    };
  }
  const countries = await page.locator(".leaflet-basemap-pane path.country").count();
  const [basemap, overlay] = await page.evaluate(() =>
    [".leaflet-basemap-pane", ".leaflet-overlay-pane"].map((s) =>
      Number(getComputedStyle(document.querySelector(s)!).zIndex),
    ),
  );
  return { countries, below: basemap! < overlay! };
}

describe.each([DESKTOP, PHONE])("at $width×$height", (viewport: Viewport) => {
  it.each(PAGES)("$name: renders cleanly, screenshot taken", async (c) => {
    const { page, problems, status } = await site.open(`${c.path}`, viewport, c.status ?? 200);
    expect(status).toBe(c.status ?? 200);
    if (c.map) {
      await mapReady(page);
      const { countries, below } = await basemapUnderFeatures(page);
      expect(countries).toBeGreaterThan(100);
      expect(below).toBe(true);
    }
    // Header with the service name and its links; footer with the configured licence and contact.
    expect(await page.locator(".site-header .brand").textContent()).toBe("Location Proof Query Service");
    expect(await page.locator(".site-nav a").allTextContents()).toEqual([
      "Proofs",
      "Map",
      "OGC API",
      "API docs",
    ]);
    expect(await page.locator('.site-footer a[rel="license"]').textContent()).toBe("CC BY 4.0");
    expect(await page.locator('.site-footer a[href^="mailto:"]').count()).toBe(1);
    // Link labels are words; the rel and media type only in a tooltip.
    expect(await page.locator("main").textContent()).not.toMatch(/application\/(geo\+)?json|\brel\b/);
    await screenshot(page, `${c.name}-${viewport.name}`);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("items: the popup fits inside the map and links to the proof's page", async () => {
    const { page, problems } = await site.open(
      `${items}?filter=${encodeURIComponent(`uid = '${point.uid}'`)}`,
      viewport,
    );
    await mapReady(page);
    await page.waitForSelector("#map[data-ready]");
    // The one proof of the map, clicked where it is drawn (the map says where: data-first-point).
    const [x, y] = JSON.parse((await page.locator("#map").getAttribute("data-first-point"))!) as number[];
    const canvas = (await page.locator("#map canvas").boundingBox())!;
    await page.mouse.click(canvas.x + x!, canvas.y + y!);
    const popup = page.locator(".maplibregl-popup");
    await popup.waitFor({ timeout: 5000 });
    await page.waitForTimeout(400); // the map pans to show the popup
    await screenshot(page, `items-popup-${viewport.name}`);
    const map = (await page.locator("#map").boundingBox())!;
    const box = (await page.locator(".maplibregl-popup-content").boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(map.x);
    expect(box.y).toBeGreaterThanOrEqual(map.y);
    expect(box.x + box.width).toBeLessThanOrEqual(map.x + map.width);
    expect(box.y + box.height).toBeLessThanOrEqual(map.y + map.height);
    const text = await popup.textContent();
    expect(text).toContain(point.memo!);
    expect(text).toContain(point.chain);
    expect(text).toContain(`${point.prover.slice(0, 6)}…${point.prover.slice(-4)}`);
    await popup.locator("a.more").click();
    await page.waitForURL(`**${items}/${point.uid}?f=html`);
    await mapReady(page);
    expect(await page.locator("h1").textContent()).toBe(point.memo);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("items: tables are readable: chosen columns, short uids, no word broken letter by letter", async () => {
    const { page, problems } = await site.open(`${items}?limit=50`, viewport);
    await mapReady(page);
    if (viewport === DESKTOP) {
      expect(await page.locator("table.proofs thead th").allTextContents()).toEqual([
        "Event time",
        "Chain",
        "Memo",
        "Location type",
        "Geometry",
        "Revoked",
        "Proof",
      ]);
      // Every header on one line.
      const heights = await page
        .locator("table.proofs thead th")
        .evaluateAll((ths) => ths.map((th) => th.getBoundingClientRect().height));
      expect(Math.max(...heights)).toBeLessThan(40);
    } else {
      // On a phone each row is a card: every value has room (no column a few letters wide).
      const widths = await page
        .locator("table.proofs td .v")
        .evaluateAll((vs) => vs.map((v) => (v as HTMLElement).getBoundingClientRect().width));
      expect(widths.length).toBeGreaterThan(0);
      const narrow = await page
        .locator("table.proofs td")
        .evaluateAll((tds) => tds.filter((td) => td.getBoundingClientRect().width < 300).length);
      expect(narrow).toBe(0);
    }
    const uid = page.locator("table.proofs a.uid").first();
    expect(await uid.textContent()).toMatch(/^0x[0-9a-f]{4}…[0-9a-f]{4}$/);
    expect(await uid.getAttribute("title")).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await page.locator("table.proofs button.copy:visible").count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("navigation", () => {
  it("a newcomer reaches the map of proofs over country outlines from / in one click", async () => {
    const { page, problems } = await site.open(`/`, DESKTOP);
    expect(await page.locator(".stat b").first().textContent()).toBe(String(rows.length));
    await page.getByRole("link", { name: "Open the map of proofs" }).click();
    await mapReady(page);
    expect(Number(await page.locator("#map").getAttribute("data-countries"))).toBeGreaterThan(100);
    expect(Number(await page.locator("#map").getAttribute("data-feature-count"))).toBeGreaterThan(50);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("pages say where the reader is (11–20 of 120) and the page-size selector changes the page", async () => {
    const { page, problems } = await site.open(`${items}?limit=10&offset=10`, DESKTOP);
    await mapReady(page);
    expect(await page.locator(".pager .count").textContent()).toBe("11–20 of 120 proofs");
    await page.locator(".pager select[name=limit]").selectOption("50");
    await page.waitForURL(/limit=50/);
    await mapReady(page);
    expect(await page.locator(".pager .count").textContent()).toBe("1–50 of 120 proofs");
    expect(await page.locator("table.proofs a.uid").count()).toBe(50);
    // Next/prev links carry a cursor (keyset paging); the pager still says where the reader is.
    const follow = async (rel: "next" | "prev") => {
      const before = page.url();
      await page.locator(`.pager a[rel="${rel}"]`).click();
      await page.waitForURL((url) => url.href !== before && url.searchParams.has("cursor"));
      await mapReady(page);
      return page.locator(".pager .count").textContent();
    };
    expect(await follow("next")).toBe("51–100 of 120 proofs");
    expect(await follow("next")).toBe("101–120 of 120 proofs");
    expect(await follow("prev")).toBe("51–100 of 120 proofs");
    expect(await follow("prev")).toBe("1–50 of 120 proofs");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("the collections list links each title to its collection page, which maps the extent", async () => {
    const { page, problems } = await site.open(`/api/ogc/collections`, DESKTOP);
    await page.getByRole("link", { name: "Location proof shapes", exact: true }).click();
    await page.waitForURL(/location-proof-shapes/);
    await mapReady(page);
    expect(await page.locator(".leaflet-overlay-pane path.extent-box").count()).toBe(1);
    expect(await page.locator(".leaflet-basemap-pane path.country").count()).toBeGreaterThan(100);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("an error asked for by a browser is a page with the message and a way home", async () => {
    const { page, problems } = await site.open(`/api/v0/location-proofs?bbox=10,10,0,0`, DESKTOP, 400);
    expect(await page.locator(".error-page .message").textContent()).toBe(
      "bbox minLat (10) must not be greater than maxLat (0)",
    );
    await page.getByRole("link", { name: "Go to the home page" }).click();
    await page.waitForURL(`${site.base}/`);
    expect(await page.locator("h1").textContent()).toBe("Location Proof Query Service");
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** A one-pixel PNG: what a tile server answers here (the map stretches it to a tile). */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

describe("with a raster tile layer (BASEMAP_TILE_URL)", () => {
  let tiles: Server;
  let tileOrigin: string;
  const requested: string[] = [];
  const env = (url: string) => ({
    LOG_LEVEL: "silent",
    RATE_LIMIT_PER_MINUTE: "0",
    BASEMAP_TILE_URL: `${url}/{z}/{x}/{y}.png`,
    BASEMAP_ATTRIBUTION: "Tiles © Test & Co",
  });
  beforeAll(async () => {
    tiles = createServer((req, res) => {
      requested.push(req.url ?? "");
      // As public tile servers do: the map of every proof fetches its tiles (CORS), Leaflet loads them as images.
      res.writeHead(200, { "content-type": "image/png", "access-control-allow-origin": "*" }).end(PIXEL);
    });
    await new Promise<void>((resolve) => tiles.listen(0, "127.0.0.1", resolve));
    // Another origin than the pages' (localhost:port): the CSP must allow exactly this one.
    tileOrigin = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
    await new Promise((resolve) => tiles?.close(resolve));
  });

  it("draws the tiles from that one origin, with their attribution, and keeps the outlines beneath", async () => {
    setConfig(loadConfig(env(tileOrigin)));
    const { page, problems } = await site.open(`${items}?limit=100`, DESKTOP);
    await mapReady(page);
    // The map of every proof (MapLibre GL JS) fetches the raster tiles and draws them above the outlines.
    await page.waitForSelector("#map[data-ready]");
    expect(requested.length).toBeGreaterThan(0);
    await page.locator(".maplibregl-ctrl-attrib-button").click();
    expect(await page.locator(".maplibregl-ctrl-attrib").textContent()).toContain("Tiles © Test & Co");
    const layers = ((await page.locator("#map").getAttribute("data-layers")) ?? "").split(",");
    expect(layers.indexOf("land")).toBeLessThan(layers.indexOf("basemap"));
    expect(layers.indexOf("basemap")).toBeLessThan(layers.indexOf("points"));
    expect(Number(await page.locator("#map").getAttribute("data-countries"))).toBeGreaterThan(100);
    await screenshot(page, "items-tiles-desktop");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("offline (the tile server unreachable), the country outlines still draw", async () => {
    setConfig(loadConfig(env("http://127.0.0.1:9")));
    const { page } = await site.open(`${items}?limit=100`, DESKTOP);
    await mapReady(page);
    expect(Number(await page.locator("#map").getAttribute("data-countries"))).toBeGreaterThan(100);
    await screenshot(page, "items-tiles-offline-desktop");
    await page.close();
  });
});
