import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseQuery } from "../../lib/http/query.js";
import { integerParam } from "../../lib/params/grammar.js";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, LIST_PARAMS } from "../../lib/v0/list-params.js";
import { queryParameters } from "../../lib/v0/openapi-params.js";
import { createTestApp, TEST_BASE, type TestApp } from "../helpers/app.js";

type Param = { name: string; schema: Record<string, any>; example?: unknown };

let app: TestApp;
let doc: any;

beforeAll(async () => {
  app = await createTestApp({ CHAINS: "devnet" });
  const res = await app.get("/api/v0/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/vnd.oai.openapi+json;version=3.1");
  doc = res.body;
});
afterAll(() => app.close());

/** What parseQuery (the validator every route uses) makes of one parameter value: its parsed value, or the 400. */
function accepts(name: string, value: string): boolean {
  try {
    parseQuery(new Request(`${TEST_BASE}/x?${new URLSearchParams({ [name]: value })}`), LIST_PARAMS);
    return true;
  } catch {
    return false;
  }
}

describe("GET /api/v0/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document (an outside validator: @seriousme/openapi-schema-validator)", async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: TEST_BASE }]);
  });

  it("documents every native endpoint, the service ones, the docs page and itself", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/",
        "/api/v0/config",
        "/api/v0/location-proofs",
        "/api/v0/location-proofs/stats",
        "/api/v0/location-proofs/{uid}",
        "/api/v0/location-records",
        "/api/v0/location-records/config",
        "/api/v0/location-records/stats",
        "/api/v0/location-records/{uid}",
        "/api/v0/location-records/{uid}/signed",
        "/api/v0/openapi.json",
        "/docs",
        "/health",
      ].sort(),
    );
  });

  it("declares exactly the list parameters the validator takes", () => {
    const names = doc.paths["/api/v0/location-proofs"].get.parameters.map((p: Param) => p.name);
    expect(names.sort()).toEqual(Object.keys(LIST_PARAMS).sort());
  });

  it("states each bound, default and enum the validator enforces (one source for both)", () => {
    const params: Param[] = doc.paths["/api/v0/location-proofs"].get.parameters;
    const byName = Object.fromEntries(params.map((p) => [p.name, p.schema]));
    expect(byName.limit).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: LIST_MAX_LIMIT,
      default: LIST_DEFAULT_LIMIT,
    });
    expect(byName.includeRevoked).toMatchObject({ type: "boolean", default: false });
    for (const { name, schema } of params) {
      if (schema.type === "integer") {
        expect(accepts(name, String(schema.minimum)), `${name}=${schema.minimum}`).toBe(true);
        expect(accepts(name, String(schema.minimum - 1)), `${name}=${schema.minimum - 1}`).toBe(false);
        if (schema.maximum < Number.MAX_SAFE_INTEGER) {
          expect(accepts(name, String(schema.maximum)), `${name}=${schema.maximum}`).toBe(true);
          expect(accepts(name, String(schema.maximum + 1)), `${name}=${schema.maximum + 1}`).toBe(false);
        }
      }
      const values: unknown[] | undefined = schema.enum ?? schema.items?.enum;
      if (values) {
        for (const value of values) expect(accepts(name, String(value)), `${name}=${value}`).toBe(true);
        expect(accepts(name, "not-one-of-them"), `${name}=not-one-of-them`).toBe(false);
      }
      if (schema.type === "boolean") {
        expect(accepts(name, "true") && accepts(name, "false")).toBe(true);
        expect(accepts(name, "yes")).toBe(false);
      }
      // The default is what the validator fills in for an absent parameter.
      const absent = parseQuery(new Request(`${TEST_BASE}/x`), LIST_PARAMS) as Record<string, unknown>;
      expect(absent[name], `default of ${name}`).toEqual(schema.default);
    }
  });

  it("gives parameter examples the validator accepts", () => {
    const params: Param[] = doc.paths["/api/v0/location-proofs"].get.parameters;
    const examples = params.flatMap((p: any) => {
      const m = /Example: `([^`]+)`\.$/.exec(p.description);
      return m ? [[p.name, m[1]!] as const] : [];
    });
    expect(examples.length).toBeGreaterThan(4);
    for (const [name, value] of examples) expect(accepts(name, value), `${name}=${value}`).toBe(true);
  });

  it("changes with the validator: another bound gives another document", () => {
    const [limit] = queryParameters({ limit: v.optional(integerParam("limit", 5, 50), "20") }) as Param[];
    expect(limit!.schema).toEqual({ type: "integer", minimum: 5, maximum: 50, default: 20 });
  });

  it("has examples that match their own schemas", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: "doc", components: doc.components });
    const resolve = (schema: object) =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"doc#/components'));
    let checked = 0;
    for (const item of Object.values<any>(doc.paths)) {
      for (const response of Object.values<any>(item.get.responses)) {
        for (const media of Object.values<any>(response.content ?? {})) {
          if (media.example === undefined) continue;
          expect(ajv.validate(resolve(media.schema), media.example), ajv.errorsText()).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(8);
  });

  it("is linked from / and from /api/v0/config", async () => {
    const root = await app.get("/");
    expect(root.body.links.openapi).toBe(`${TEST_BASE}/api/v0/openapi.json`);
    expect(root.body.links.docs).toBe(`${TEST_BASE}/docs`);
    const config = await app.get("/api/v0/config");
    expect(config.body.links).toEqual({
      openapi: `${TEST_BASE}/api/v0/openapi.json`,
      docs: `${TEST_BASE}/docs`,
      ogc_api: `${TEST_BASE}/api/ogc/api`,
    });
  });

  it("rejects unknown parameters like every route", async () => {
    const res = await app.get("/api/v0/openapi.json?x=1");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "UnknownParameter", parameter: "x" });
  });
});
