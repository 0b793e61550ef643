import { describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { DESKTOP, horizontalOverflow, PHONE, screenshot, siteForSuite } from "./chromium.js";

/**
 * /docs in headless Chromium: Swagger UI (from our own origin, under the pages' CSP) renders the native API's
 * OpenAPI document with every endpoint it declares, and "Try it out" really calls the local server.
 */
const site = siteForSuite(sampleProofs({ count: 30, seed: 11 }));

/** The operations Swagger UI lists, as "GET /path". */
async function listedOperations(page: import("playwright-core").Page): Promise<string[]> {
  await page.waitForSelector(".opblock-summary-path", { timeout: 20_000 });
  return page.evaluate(() =>
    Array.from(document.querySelectorAll(".opblock")).map((op) => {
      const method = op.querySelector(".opblock-summary-method")?.textContent?.trim();
      const path = op.querySelector(".opblock-summary-path")?.getAttribute("data-path");
      return `${method} ${path}`;
    }),
  );
}

describe("/docs", () => {
  it("renders every endpoint of the document with no console error or CSP violation", async () => {
    const doc = (await (await fetch(`${site.base}/api/v0/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const { page, problems, status } = await site.open(`/docs`, DESKTOP);
    expect(status).toBe(200);
    const listed = await listedOperations(page);
    expect(listed.sort()).toEqual(
      // Every operation the document declares (the reads, and publishing an off-chain record).
      Object.entries(doc.paths)
        .flatMap(([path, item]) =>
          Object.keys(item)
            .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
            .map((m) => `${m.toUpperCase()} ${path}`),
        )
        .sort(),
    );
    // The way to the OGC API's own description, and to the document itself.
    expect(await page.locator('main a[href="/api/ogc/api?f=html"]').count()).toBe(1);
    expect(await page.locator('main a[href="/api/v0/openapi.json"]').count()).toBeGreaterThan(0);
    expect(await page.locator('.site-nav a[aria-current="page"]').textContent()).toBe("API docs");
    // Swagger UI shows its own warnings (e.g. about the document) and errors on the page.
    expect(await page.locator(".errors-wrapper").count()).toBe(0);
    expect(await page.getByText("Warning", { exact: true }).count()).toBe(0);
    await screenshot(page, "docs-desktop");
    expect(problems).toEqual([]);
    await page.close();
  });

  it('"Try it out" on the list calls the local server and shows its answer', async () => {
    const { page, problems } = await site.open(`/docs#/location%20proofs/listLocationProofs`, DESKTOP);
    const op = page.locator("#operations-location_proofs-listLocationProofs");
    await op.waitFor({ timeout: 20_000 });
    // The deep link opens the operation once Swagger UI has rendered it. Clicking its summary toggles it: clicked
    // while the opening is still being rendered (a busy machine), it closed the operation again (seen in CI). So
    // wait for the opened operation first, and open it by hand only if the deep link did not.
    const tryOut = op.locator(".try-out__btn");
    const opened = await tryOut.waitFor({ state: "visible", timeout: 15_000 }).then(
      () => true,
      () => false,
    );
    if (!opened) await op.locator(".opblock-summary").click();
    await tryOut.click();
    await op.locator('tr[data-param-name="limit"] input').fill("2");
    const answered = page.waitForResponse((r) => r.url().startsWith(`${site.base}/api/v0/location-proofs?`));
    await op.locator(".execute").click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(new URL(response.url()).searchParams.get("limit")).toBe("2");
    const shown = op.locator(".live-responses-table tbody .response-col_status").first();
    await expect.poll(() => shown.textContent(), { timeout: 10_000 }).toContain("200");
    const body = await op
      .locator(".live-responses-table .microlight, .live-responses-table pre")
      .first()
      .textContent();
    expect(body).toContain('"pagination"');
    await screenshot(page, "docs-try-it");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("fits a phone without sideways scrolling", async () => {
    const { page, problems } = await site.open(`/docs`, PHONE);
    await listedOperations(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, "docs-phone");
    expect(problems).toEqual([]);
    await page.close();
  });
});
