import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { serve } from "../../lib/local/http-server.js";
import { createRouter } from "../../lib/local/router.js";
import { insertProofs, type sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, ROOT, type TestApp } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";

/**
 * Headless Chromium (Debian's `chromium`) for the browser suites, and a page opener that records everything a
 * person would call broken: console errors and warnings, page errors, failed requests, HTTP errors and CSP
 * violations (reported by the page itself through `securitypolicyviolation`).
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
  "--hide-scrollbars",
];

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });

export type Site = {
  app: TestApp;
  base: string;
  browser: Browser;
  /** Opens `path` of the site (see open). */
  open(path: string, viewport?: Viewport, expectStatus?: number): Promise<Opened>;
  close(): Promise<void>;
};

/** The local server over a fresh database holding `rows` (with the configuration `env`), and Chromium. */
export async function startSite(
  rows: ReturnType<typeof sampleProofs>,
  env: Record<string, string> = {},
): Promise<Site> {
  const app = await createTestApp(env);
  await insertProofs(app.db, rows);
  const { server, url } = await serve(recordingRouter(createRouter(ROOT)), 0);
  const browser = await launchChromium();
  return {
    app,
    base: url,
    browser,
    open: (path, viewport, expectStatus) => open(browser, `${url}${path}`, viewport, expectStatus),
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    },
  };
}

/**
 * The suite's site: `startSite(rows, env)` before its tests (then `prepare` on it, for more data), closed after them.
 * Its fields are read inside the tests, once it has started.
 */
export function siteForSuite(
  rows: ReturnType<typeof sampleProofs>,
  env: Record<string, string> = {},
  prepare?: (site: Site) => Promise<unknown>,
): Site {
  let started: Site | undefined;
  beforeAll(async () => {
    started = await startSite(rows, env);
    await prepare?.(started);
  });
  afterAll(() => started?.close());
  const current = (): Site => {
    if (!started) throw new Error("the site starts in beforeAll");
    return started;
  };
  return {
    get app() {
      return current().app;
    },
    get base() {
      return current().base;
    },
    get browser() {
      return current().browser;
    },
    open: (path, viewport, expectStatus) => current().open(path, viewport, expectStatus),
    close: () => current().close(),
  };
}

export const DESKTOP = { name: "desktop", width: 1280, height: 800 } as const;
export const PHONE = { name: "phone", width: 390, height: 844 } as const;
export type Viewport = typeof DESKTOP | typeof PHONE;

/** Where the screenshots go (docs/development.md, "Browser tests"; CI keeps it as an artifact). */
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? join(ROOT, "artifacts/screenshots");

export type Opened = { page: Page; problems: string[]; status: number };

/**
 * Opens `url` as a browser would (its own Accept header: no f=html needed) at the given size. `expectStatus` is the
 * main document's expected status (an error page's 404 is not a problem; anything else >= 400 is).
 */
export async function open(
  browser: Browser,
  url: string,
  viewport: Viewport = DESKTOP,
  expectStatus = 200,
): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: viewport.width, height: viewport.height } });
  const problems: string[] = [];
  page.on("console", (msg) => {
    // Chromium logs an error document's own status too; that one is expected (and checked by the caller).
    const expected =
      expectStatus >= 400 &&
      msg.location().url.split("#")[0] === page.url() &&
      msg.text().includes(`status of ${expectStatus}`);
    // Chromium's software WebGL (the map of every proof) logs its own performance notes as warnings ("GL Driver
    // Message …"): they come from the renderer, not from the page.
    const renderer = msg.type() === "warning" && msg.text().includes("GL Driver Message");
    if ((msg.type() === "error" || msg.type() === "warning") && !expected && !renderer)
      problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  // A request the page cancelled itself (a map cancels the tiles a move made unneeded; leaving the page cancels what
  // is still loading) is no failure.
  page.on("requestfailed", (request) => {
    if (request.failure()?.errorText !== "net::ERR_ABORTED")
      problems.push(`request failed: ${request.url()}`);
  });
  page.on("response", (response) => {
    const main = response.request().isNavigationRequest() && response.status() === expectStatus;
    if (response.status() >= 400 && !main) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  await page.exposeFunction("__cspViolation", (text: string) => problems.push(`CSP violation: ${text}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { __cspViolation(t: string): void }).__cspViolation(
        `${event.violatedDirective} ${event.blockedURI}`,
      );
    });
  });
  const response = await page.goto(url, { waitUntil: "load" });
  return { page, problems, status: response?.status() ?? 0 };
}

/** Waits until the map drew its features and its country outlines. */
export async function mapReady(page: Page): Promise<void> {
  await page.waitForSelector("#map[data-feature-count][data-basemap]", { timeout: 15_000 });
}

/** Two images: the whole page (`name.png`) and what the window shows first (`name.screen.png`). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.screen.png`) });
  return path;
}

/** The page is no wider than the window: nothing scrolls sideways. */
export const horizontalOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
