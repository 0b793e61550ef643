import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { loadSyntheticProofs, SYNTHETIC_CITIES } from "../../lib/local/synthetic-proofs.js";
import { MAX_POINTS } from "../../lib/tiles/tile-rules.js";
import { horizontalOverflow, mapReady, PHONE, screenshot, siteForSuite, type Viewport } from "./chromium.js";

/**
 * The maps in a real headless Chromium, everything from our own origin under the restrictive CSP, with no console
 * error: the map of every proof (MapLibre GL JS over the vector tiles) shows clusters with their counts at the
 * world's zoom and each proof as a point zoomed in, opens a proof from a click, zooms into a cluster, and filters the
 * map and the list together by chain and time; the single proof's page keeps its Leaflet map with one marker.
 */
const rows = sampleProofs({ count: 120, seed: 9 });
const ITEMS = "/api/ogc/collections/location-proofs/items";
const [, tokyoLon, tokyoLat] = SYNTHETIC_CITIES[0]!;
// Crowds around 30 cities: many more than a tile carries as points at the world's zoom.
// The networks the sample proofs come from are the ones synced: the map offers a chip for each.
const site = siteForSuite(rows, { CHAINS: "sepolia,base,arbitrum,celo" }, (started) =>
  loadSyntheticProofs(started.app.db, { count: 3000, days: 400 }),
);

type Drawn = { points: number; clusters: number; proofs: number };

/** Opens the map page (a #map=zoom/lat/lon view when given) and waits until the map is idle with its outlines. */
async function openMap(
  path: string,
  viewport?: Viewport,
): Promise<{ page: Page; problems: string[]; drawn: () => Promise<Drawn> }> {
  const opened = await site.open(path, viewport);
  await mapReady(opened.page);
  await opened.page.waitForSelector("#map[data-ready]", { timeout: 20_000 });
  const drawn = async () => {
    const read = (name: string) => opened.page.locator("#map").getAttribute(`data-${name}`).then(Number);
    return { points: await read("points"), clusters: await read("clusters"), proofs: await read("proofs") };
  };
  return { ...opened, drawn };
}

async function countWithCoordinates(query = ""): Promise<number> {
  const res = await fetch(
    `${site.base}${ITEMS}?limit=1&filter=${encodeURIComponent("longitude IS NOT NULL")}${query ? `&${query}` : ""}`,
  );
  return ((await res.json()) as { numberMatched: number }).numberMatched;
}

describe("the map of every proof", () => {
  it("shows clusters with their counts at the world's zoom", async () => {
    // As far out as the map goes: the world's tiles, most of them crowded (more than a tile's points).
    const { page, problems, drawn } = await openMap(`${ITEMS}#map=0/20/0`);
    const d = await drawn();
    expect(d.clusters).toBeGreaterThan(5);
    expect(d.proofs).toBeGreaterThan(MAX_POINTS);
    expect(d.proofs).toBeLessThanOrEqual(await countWithCoordinates());
    expect(Number(await page.locator("#map").getAttribute("data-countries"))).toBeGreaterThan(100);
    await screenshot(page, "tile-map-world-desktop");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows each proof as a point zoomed in, and opens it in a popup linking to its page", async () => {
    const { page, problems, drawn } = await openMap(`${ITEMS}#map=10/${tokyoLat}/${tokyoLon}`);
    const d = await drawn();
    expect(d.clusters).toBe(0);
    expect(d.points).toBeGreaterThan(0);
    // The first point drawn, clicked where it is.
    const map = (await page.locator("#map canvas").boundingBox())!;
    const [x, y] = JSON.parse((await page.locator("#map").getAttribute("data-first-point"))!) as [
      number,
      number,
    ];
    await page.mouse.click(map.x + x, map.y + y);
    const popup = page.locator(".maplibregl-popup-content");
    await popup.waitFor({ timeout: 5000 });
    expect(await popup.locator("dt").allTextContents()).toEqual(["Event", "Chain", "Revoked", "Prover"]);
    expect(await popup.locator("a.more").getAttribute("href")).toMatch(
      /^\/api\/ogc\/collections\/location-proofs\/items\/0x[0-9a-f]{64}\?f=html$/,
    );
    await screenshot(page, "tile-map-points-desktop");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("zooms into a cluster that is clicked", async () => {
    const { page, problems } = await openMap(`${ITEMS}#map=2/${tokyoLat}/${tokyoLon}`);
    const zoom = () => page.evaluate(() => Number(location.hash.split("=")[1]?.split("/")[0]));
    const before = await zoom();
    const cluster = (await page.locator("#map").getAttribute("data-first-cluster"))!;
    const [x, y] = JSON.parse(cluster) as [number, number];
    const map = (await page.locator("#map canvas").boundingBox())!;
    await page.mouse.click(map.x + x, map.y + y);
    await page.waitForFunction((z) => Number(location.hash.split("=")[1]?.split("/")[0]) > z, before);
    expect(await zoom()).toBeGreaterThan(before);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("filters the map and the list together by chain and time window, keeping the map's view", async () => {
    const { page, problems, drawn } = await openMap(`${ITEMS}#map=0/20/0`);
    const everything = await drawn();
    const tiles: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/tiles/WebMercatorQuad/")) tiles.push(r.url());
    });
    await page.locator(".map-filters a", { hasText: /^Base$/ }).click();
    await page.waitForURL(/chain=base.*#map=/);
    await page.waitForSelector("#map[data-ready]", { timeout: 20_000 });
    const d = await drawn();
    expect(d.proofs).toBeGreaterThan(0);
    expect(d.proofs).toBeLessThan(everything.proofs);
    expect(d.proofs).toBeLessThanOrEqual(await countWithCoordinates("chain=base"));
    expect(tiles.length).toBeGreaterThan(0);
    expect(tiles.every((u) => new URL(u).searchParams.get("chain") === "base")).toBe(true);
    const chains = await page.locator('table.proofs td[data-label="Chain"]').allTextContents();
    expect(chains.length).toBeGreaterThan(0);
    expect(new Set(chains)).toEqual(new Set(["base"]));
    expect(await page.locator('.map-filters a[aria-current="true"]', { hasText: /^Base$/ }).count()).toBe(1);
    await page.locator(".map-filters a", { hasText: "Last 30 days" }).click();
    await page.waitForURL(
      (url) => url.searchParams.has("datetime") && url.searchParams.get("chain") === "base",
    );
    await page.waitForSelector("#map[data-ready]", { timeout: 20_000 });
    const datetime = new URL(page.url()).searchParams.get("datetime")!;
    const windowed = await drawn();
    expect(windowed.proofs).toBeLessThanOrEqual(
      await countWithCoordinates(`chain=base&datetime=${encodeURIComponent(datetime)}`),
    );
    expect(windowed.proofs).toBeLessThan(d.proofs);
    expect(new URL(page.url()).hash).toMatch(/^#map=/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("is usable on a phone: nothing scrolls sideways, the map and its filters fit", async () => {
    const { page, problems, drawn } = await openMap(ITEMS, PHONE);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect((await drawn()).clusters).toBeGreaterThan(0);
    const map = (await page.locator("#map").boundingBox())!;
    expect(map.width).toBeLessThanOrEqual(PHONE.width);
    expect(map.height).toBeGreaterThan(250);
    await screenshot(page, "tile-map-world-phone");
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("the single proof's map", () => {
  it("draws the proof's marker and opens its popup", async () => {
    const point = rows.find((r) => r.geometry?.type === "Point")!;
    const { page, problems } = await site.open(`${ITEMS}/${point.uid}`);
    await mapReady(page);
    expect(await page.locator(".leaflet-overlay-pane path.feature-marker").count()).toBe(1);
    await page.locator(".leaflet-overlay-pane path.feature-marker").first().click({ force: true });
    const popup = page.locator(".leaflet-popup-content");
    await popup.waitFor({ timeout: 5000 });
    expect(await popup.textContent()).toContain(point.memo!);
    expect(await popup.locator("a.more").getAttribute("href")).toBe(`${ITEMS}/${point.uid}?f=html`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
