import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { mapReady, open as openPage, type Site, startSite } from "./chromium.js";

/**
 * The HTML map in a real headless Chromium: the page loads Leaflet from our own origin under the restrictive CSP,
 * draws one marker per feature over the country outlines, opens a popup, and logs no console error.
 */
let site: Site;
let base: string;
let browser: Browser;
const rows = sampleProofs({ count: 120, seed: 9 });

beforeAll(async () => {
  site = await startSite(rows);
  ({ base, browser } = site);
});
afterAll(() => site?.close());

async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const opened = await openPage(browser, `${base}${path}`);
  await mapReady(opened.page);
  return opened;
}

const uids = (page: Page) => page.locator("table.proofs a.uid");
const geometryCells = (page: Page) =>
  page.locator('table.proofs td[data-label="Geometry"]').allTextContents();

describe("HTML map in Chromium", () => {
  it.each([1, 7, 25])("shows one marker per feature for %i features, with no console errors", async (n) => {
    // Only features with a geometry (a Point each), so every one must be on the map.
    const { page, problems } = await open(
      `/api/ogc/collections/location-proofs/items?f=html&filter=longitude%20IS%20NOT%20NULL&limit=${n}`,
    );
    expect(await uids(page).count()).toBe(n);
    expect(await page.locator("#map").getAttribute("data-feature-count")).toBe(String(n));
    expect(await page.locator(".leaflet-overlay-pane path.feature-marker").count()).toBe(n);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("opens a compact popup linking to the feature's page when a marker is clicked", async () => {
    const point = rows.find((r) => r.geometry?.type === "Point")!;
    const { page, problems } = await open(`/api/ogc/collections/location-proofs/items/${point.uid}`);
    expect(await page.locator(".leaflet-overlay-pane path.feature-marker").count()).toBe(1);
    await page.locator(".leaflet-overlay-pane path.feature-marker").first().click({ force: true });
    const popup = page.locator(".leaflet-popup-content");
    await popup.waitFor({ timeout: 5000 });
    // Issue 12: the popup shows a summary (memo, time, chain, revoked, prover) and links to the page with the uid,
    // instead of listing every property.
    expect(await popup.textContent()).toContain(point.memo!);
    expect(await popup.textContent()).toContain(point.chain);
    expect(await popup.locator("a.more").getAttribute("href")).toBe(
      `/api/ogc/collections/location-proofs/items/${point.uid}?f=html`,
    );
    expect(await popup.locator("dt").allTextContents()).toEqual(["Event", "Chain", "Revoked", "Prover"]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("draws the shapes collection: points as red markers, polygons as blue shapes", async () => {
    const polygons = rows.filter((r) => r.geometry?.type === "Polygon").length;
    expect(polygons).toBeGreaterThan(0);
    const { page, problems } = await open(
      "/api/ogc/collections/location-proof-shapes/items?f=html&filter=longitude%20IS%20NOT%20NULL&limit=1000",
    );
    const drawn = rows.filter((r) => r.geometry !== null).length;
    expect(await uids(page).count()).toBe(drawn);
    expect(await page.locator("#map").getAttribute("data-feature-count")).toBe(String(drawn));
    const types = await geometryCells(page);
    expect(types.filter((t) => t === "Polygon")).toHaveLength(polygons);
    const markers = page.locator(".leaflet-overlay-pane path.feature-marker");
    expect(await markers.count()).toBe(drawn);
    // Point markers are red (issue 12: the general style option used to turn them blue), shapes blue.
    const fills = await markers.evaluateAll((paths) => paths.map((p) => p.getAttribute("fill")));
    const points = rows.filter((r) => r.geometry?.type === "Point").length;
    expect(fills.filter((f) => f === "#d32f2f").length).toBeGreaterThanOrEqual(points);
    expect(fills.filter((f) => f === "#1b5fae").length).toBeGreaterThanOrEqual(polygons);
    const href = await uids(page).first().getAttribute("href");
    expect(href).toMatch(/^\/api\/ogc\/collections\/location-proof-shapes\/items\/0x/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("leaves features without geometry off the map but lists them", async () => {
    const { page, problems } = await open("/api/ogc/collections/location-proofs/items?f=html&limit=100");
    const listed = await uids(page).count();
    const drawn = Number(await page.locator("#map").getAttribute("data-feature-count"));
    const withGeometry = (await geometryCells(page)).filter((t) => t !== "none");
    expect(listed).toBe(100);
    expect(drawn).toBe(withGeometry.length);
    expect(drawn).toBeLessThan(100);
    expect(problems).toEqual([]);
    await page.close();
  });
});
