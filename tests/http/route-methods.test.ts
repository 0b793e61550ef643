import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTP_METHODS } from "../../lib/http/route.js";
import { createRouter } from "../../lib/local/router.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { apiRoutes } from "../helpers/routes.js";

/**
 * Methods as Vercel runs them: its Node runtime calls the export named like the method and answers any other
 * method with a bare 405. So every route module exports the whole set (route() builds it from one declaration),
 * and the local router adds nothing a deployment lacks.
 */
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ CRON_SECRET: "test-secret" });
});
afterAll(() => app.close());

describe("route modules", () => {
  it("every api/ file builds its method set with route() and exports all seven methods", async () => {
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThan(10);
    for (const { route } of routes) {
      expect(readFileSync(route.file, "utf8"), route.file).toMatch(
        /export const \{ GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE \} = route\(\{/,
      );
      const mod = (await import(pathToFileURL(route.file).href)) as Record<string, unknown>;
      for (const method of HTTP_METHODS)
        expect(typeof mod[method], `${route.path} ${method}`).toBe("function");
    }
  });

  it("a method a public route does not serve is a JSON 405 with Allow, CORS and the security headers", async () => {
    const res = await app.request("/api/v0/config", { method: "PUT" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.json()).toMatchObject({
      code: "MethodNotAllowed",
      message: expect.stringMatching(/PUT/),
    });
  });

  it("a POST-only restricted route refuses GET with 405 before asking for credentials, HEAD without a body", async () => {
    const get = await app.request("/api/sync");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
    const head = await app.request("/api/sync", { method: "HEAD" });
    expect(head.status).toBe(405);
    expect(head.headers.get("allow")).toBe("POST");
    expect(await head.text()).toBe("");
    // OPTIONS on a restricted route is not a CORS preflight.
    expect((await app.request("/api/sync", { method: "OPTIONS" })).status).toBe(405);
  });

  it("HEAD is GET without a body: same status, same ETag and caching headers", async () => {
    const get = await app.request("/api/ogc/conformance");
    const head = await app.request("/api/ogc/conformance", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    for (const name of ["content-type", "etag", "cache-control", "vary", "access-control-allow-origin"]) {
      expect(head.headers.get(name), name).toBe(get.headers.get(name));
    }
    const conditional = await app.request("/api/ogc/conformance", {
      method: "HEAD",
      headers: { "if-none-match": get.headers.get("etag")! },
    });
    expect(conditional.status).toBe(304);
  });
});

describe("the local router adds no method handling of its own", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "router-methods-"));
    mkdirSync(join(root, "api"));
    writeFileSync(join(root, "vercel.json"), "{}");
    // A module written without route(): only GET.
    writeFileSync(
      join(root, "api", "plain.mjs"),
      "export async function GET() { return new Response('hi'); }\n",
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("answers a method the module does not export with a bare 405, as Vercel does (HEAD included)", async () => {
    const router = createRouter(root);
    expect(await (await router.handle(new Request("http://localhost/api/plain"))).text()).toBe("hi");
    for (const method of ["HEAD", "PUT", "OPTIONS"]) {
      const res = await router.handle(new Request("http://localhost/api/plain", { method }));
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow"), method).toBeNull();
      expect(await res.text(), method).toBe("");
    }
  });
});
