import type { Server } from "node:http";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../lib/local/http-server.js";
import { createRouter } from "../../lib/local/router.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, ROOT, type TestApp } from "../helpers/app.js";

/**
 * The HTML map in a real headless Chromium (Debian's `chromium`): the page loads Leaflet from our own origin under
 * the restrictive CSP, draws one marker per feature, opens a popup with the properties, and logs no console error.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

let app: TestApp;
let server: Server;
let base: string;
let browser: Browser;
const rows = sampleProofs({ count: 120, seed: 9 });

beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, rows);
  ({ server, url: base } = await serve(createRouter(ROOT), 0));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await app?.close();
});

/** Opens a page and records every console error, page error, failed request and CSP violation. */
async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning")
      problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  await page.goto(`${base}${path}`, { waitUntil: "load" });
  await page.waitForSelector("#map[data-feature-count]", { timeout: 15_000 });
  return { page, problems };
}

describe("HTML map in Chromium", () => {
  it.each([1, 7, 25])("shows one marker per feature for %i features, with no console errors", async (n) => {
    // A world bbox: every feature of the page has a geometry, so every one must be on the map.
    const { page, problems } = await open(
      `/api/ogc/collections/location-proofs/items?f=html&bbox=-180,-90,180,90&limit=${n}`,
    );
    const features = await page.locator("table tr td a").count();
    expect(features).toBe(n);
    expect(await page.locator("#map").getAttribute("data-feature-count")).toBe(String(n));
    expect(await page.locator(".leaflet-overlay-pane path.feature-marker").count()).toBe(n);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("opens a popup with the feature's properties when a marker is clicked", async () => {
    const point = rows.find((r) => r.geometry?.type === "Point")!;
    const { page, problems } = await open(`/api/ogc/collections/location-proofs/items/${point.uid}`);
    expect(await page.locator(".leaflet-overlay-pane path.feature-marker").count()).toBe(1);
    await page.locator(".leaflet-overlay-pane path.feature-marker").first().click({ force: true });
    const popup = page.locator(".leaflet-popup-content");
    await popup.waitFor({ timeout: 5000 });
    expect(await popup.textContent()).toContain(point.uid);
    expect(await popup.textContent()).toContain(point.chain);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("leaves features without geometry off the map but lists them", async () => {
    const { page, problems } = await open("/api/ogc/collections/location-proofs/items?f=html&limit=100");
    const listed = await page.locator("table tr td a").count();
    const drawn = Number(await page.locator("#map").getAttribute("data-feature-count"));
    const withGeometry = (await page.locator("table tr td:last-child").allTextContents()).filter(
      (t) => t !== "none",
    );
    expect(listed).toBe(100);
    expect(drawn).toBe(withGeometry.length);
    expect(drawn).toBeLessThan(100);
    expect(problems).toEqual([]);
    await page.close();
  });
});
