import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";
import { checkExchange, type Exchange } from "../helpers/contract.js";

/**
 * The contract check itself (tests/helpers/contract.ts, run after every test file over the responses it got): the
 * OGC API's document is valid OpenAPI 3.0, and the check catches a response that drifts from its document.
 */
let app: TestApp;
let uid: string;

beforeAll(async () => {
  app = await createTestApp();
  const rows = sampleProofs({ count: 5, seed: 4 });
  await insertProofs(app.db, rows);
  uid = rows[0]!.uid;
});
afterAll(() => app.close());

/** An exchange as the recorder keeps it, from a path and an answer made up for the test. */
const exchange = (
  path: string,
  status: number,
  body: unknown,
  contentType = "application/json",
  method = "GET",
): Exchange => ({
  method,
  url: `${TEST_BASE}${path}`,
  status,
  headers: new Headers({
    "content-type": contentType,
    "cache-control": "no-store",
    etag: '"x"',
    "access-control-allow-origin": "*",
  }),
  body: Promise.resolve(typeof body === "string" ? body : JSON.stringify(body)),
});

describe("the OGC API's own definition", () => {
  it("is valid OpenAPI 3.0 (an outside validator: @seriousme/openapi-schema-validator)", async () => {
    const res = await app.get("/api/ogc/api");
    expect(res.status).toBe(200);
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });
});

describe("the contract check", () => {
  it("passes real answers of both APIs", async () => {
    for (const path of [
      "/api/v0/location-proofs?limit=2",
      `/api/v0/location-proofs/${uid}`,
      "/api/ogc/collections/location-proofs/items?limit=2",
      "/nope/api",
    ]) {
      const res = await app.request(path);
      const x: Exchange = {
        method: "GET",
        url: `${TEST_BASE}${path}`,
        status: res.status,
        headers: res.headers,
        body: res.text(),
      };
      expect(await checkExchange(x), path).toEqual([]);
    }
  });

  it("catches a body member the document does not declare", async () => {
    const res = await app.get(`/api/v0/location-proofs/${uid}`);
    const problems = await checkExchange(
      exchange(`/api/v0/location-proofs/${uid}`, 200, { ...res.body, surprise: 1 }),
    );
    expect(problems.join()).toMatch(/must NOT have additional properties/);
  });

  it("catches a missing member, a status and a media type the document does not declare", async () => {
    expect((await checkExchange(exchange("/api/v0/config", 200, { version: "1" }))).join()).toMatch(
      /must have required property/,
    );
    expect((await checkExchange(exchange("/api/v0/config", 418, {}))).join()).toMatch(
      /status not documented/,
    );
    expect((await checkExchange(exchange("/api/ogc/collections", 200, "hi", "text/plain"))).join()).toMatch(
      /Content-Type text\/plain/,
    );
    expect((await checkExchange(exchange("/api/ogc/conformance", 200, { conformsTo: 1 }))).join()).toMatch(
      /must be array/,
    );
  });

  it("holds an unknown path to a 404 error and an unknown method to a 405 with Allow", async () => {
    expect((await checkExchange(exchange("/api/v0/nothing-here", 200, {}))).join()).toMatch(/expected 404/);
    const wrong = await checkExchange(
      exchange(
        "/api/v0/config",
        405,
        { error: "x", code: "MethodNotAllowed", message: "m", description: "m" },
        "application/json",
        "POST",
      ),
    );
    expect(wrong.join()).toMatch(/Allow/);
  });

  it("catches a required header that is missing", async () => {
    const x = exchange("/api/v0/location-proofs/stats", 200, {});
    x.headers.delete("etag");
    expect((await checkExchange(x)).join()).toMatch(/required header ETag missing/);
  });
});
