import { describe, expect, it } from "vitest";
import { sampleProofs } from "../../lib/local/sample-proofs.js";
import { DESKTOP, screenshot, siteForSuite } from "./chromium.js";

/**
 * /graphql in headless Chromium: GraphiQL (its files from our own origin, under the pages' CSP) loads the schema by
 * introspection, runs its example query against the local server and shows the answer, with no console error or
 * CSP violation.
 */
const site = siteForSuite(sampleProofs({ count: 30, seed: 11 }));

describe("/graphql in a browser", () => {
  it("is GraphiQL: it runs the example query and shows the page of proofs", async () => {
    const { page, problems, status } = await site.open(`/graphql`, DESKTOP);
    expect(status).toBe(200);
    await page.waitForSelector(".graphiql-container", { timeout: 20_000 });
    const answered = page.waitForResponse(
      (r) =>
        r.url().endsWith("/graphql") &&
        r.request().method() === "POST" &&
        /locationProofs/.test(r.request().postData() ?? ""),
    );
    await page.locator(".graphiql-execute-button").click();
    const response = await answered;
    expect(response.status()).toBe(200);
    const body = (await response.json()) as {
      data: { locationProofs: { totalCount: number; nodes: unknown[] } };
    };
    expect(body.data.locationProofs.nodes).toHaveLength(5);
    await page.waitForFunction(
      () => /"totalCount"/.test(document.querySelector(".result-window")?.textContent ?? ""),
      null,
      {
        timeout: 10_000,
      },
    );
    await screenshot(page, "graphiql-desktop");
    expect(problems).toEqual([]);
    await page.close();
  });
});
