import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_BODY_BYTES, readJsonBody } from "../../lib/http/body.js";
import { errorResponse } from "../../lib/http/respond.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/** The POST body helper (lib/http/body.ts) against oversized, lying, malformed and invalid bodies. */
const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://localhost/api/sync", {
    method: "POST",
    body,
    headers,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    const res = errorResponse(error);
    return { status: res.status, body: await res.json() };
  }
  throw new Error("expected a failure");
}

describe("readJsonBody", () => {
  it("reads a small JSON body, and an empty one as undefined", async () => {
    expect(await readJsonBody(post('{"chain":"devnet"}'))).toEqual({ chain: "devnet" });
    expect(await readJsonBody(post(null))).toBeUndefined();
    expect(await readJsonBody(post("  \n"))).toBeUndefined();
  });

  it("refuses a declared Content-Length over the cap with 413 before reading", async () => {
    const res = await failure(
      readJsonBody(post("{}", { "content-length": String(MAX_JSON_BODY_BYTES + 1) })),
    );
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: "PayloadTooLarge", parameter: "body" });
  });

  it("refuses an oversized body streamed without (or under a lying) Content-Length", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(4096).fill(32));
      },
    });
    const res = await failure(readJsonBody(post(endless)));
    expect(res.status).toBe(413);
    // It stopped reading soon after the cap instead of draining the stream.
    expect(pulled * 4096).toBeLessThan(MAX_JSON_BODY_BYTES + 3 * 4096);
    const big = `{"a":"${"x".repeat(MAX_JSON_BODY_BYTES)}"}`;
    expect((await failure(readJsonBody(post(big)))).status).toBe(413);
    expect((await failure(readJsonBody(post(big), { maxBytes: 10 }))).status).toBe(413);
  });

  it("answers malformed JSON and invalid UTF-8 with a 400 naming the body", async () => {
    for (const bad of ["{", "{'a':1}", "nul", "[1,]", '{"a":1}}', "\u0000", "NaN", "Infinity", "undefined"]) {
      const res = await failure(readJsonBody(post(bad)));
      expect(res.status, bad).toBe(400);
      expect(res.body, bad).toMatchObject({ code: "InvalidRequestBody", parameter: "body" });
    }
    const res = await failure(readJsonBody(post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))));
    expect(res.status).toBe(400);
  });

  it("validates against a schema and names the field at fault", async () => {
    const schema = v.object({ chain: v.picklist(["devnet", "base"], "chain must be devnet or base") });
    expect(await readJsonBody(post('{"chain":"base"}'), { schema })).toEqual({ chain: "base" });
    const res = await failure(readJsonBody(post('{"chain":"mars"}'), { schema }));
    expect(res.status).toBe(400);
    expect(res.body.parameter).toBe("body.chain");
    expect(res.body.message).toMatch(/chain must be devnet or base/);
    expect((await failure(readJsonBody(post(null), { schema, required: true }))).status).toBe(400);
  });
});

/**
 * The restricted POST endpoints take their options in the query string; a body, if any, is read under the cap and
 * must be empty or {} (docs/security.md, "Restricted endpoints"). Through the real routes, with the secret.
 */
describe("bodies on the restricted POST endpoints", () => {
  let app: TestApp;
  beforeAll(async () => {
    // No chain is enabled, so a sync that gets past its body does no chain work.
    app = await createTestApp({ CRON_SECRET: "body-secret", CHAINS: "" });
  });
  afterAll(() => app.close());

  const ENDPOINTS = ["/api/sync", "/api/sync/revocations", "/api/sync/worker?action=pause", "/api/cron/sync"];
  const send = (path: string, body: BodyInit | undefined, headers: Record<string, string> = {}) =>
    app.get(path, {
      method: "POST",
      headers: { authorization: "Bearer body-secret", ...headers },
      ...(body === undefined ? {} : { body }),
    });

  it.each(ENDPOINTS)("%s: malformed JSON is a 400 naming the body", async (path) => {
    for (const bad of ["{", "{'chain':'devnet'}", "[1,]", "\u0000"]) {
      const res = await send(path, bad, { "content-type": "application/json" });
      expect(res.status, bad).toBe(400);
      expect(res.body, bad).toMatchObject({ code: "InvalidRequestBody", parameter: "body" });
    }
  });

  it.each(ENDPOINTS)("%s: a body over 16 KiB is a 413", async (path) => {
    const res = await send(path, `{"a":"${"x".repeat(20 * 1024)}"}`);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: "PayloadTooLarge", parameter: "body" });
    expect(res.body.message).toContain(String(MAX_JSON_BODY_BYTES));
  });

  it.each(ENDPOINTS)("%s: options in the body are a 400 pointing to the query string", async (path) => {
    for (const body of ['{"chain":"devnet"}', "[]", '"devnet"', "null", "1"]) {
      const res = await send(path, body);
      expect(res.status, body).toBe(400);
      expect(res.body.message, body).toMatch(/query string/);
    }
  });

  it.each(ENDPOINTS)("%s: no body, whitespace or {} are accepted", async (path) => {
    for (const body of [undefined, "", " \n", "{}"]) {
      const res = await send(path, body);
      // Past the body the endpoint does its work: a sync with no reachable chain reports its failure (500 when every
      // chain failed), which is not about the request.
      expect([400, 413], `${String(body)}: ${JSON.stringify(res.body).slice(0, 200)}`).not.toContain(
        res.status,
      );
      if (path.startsWith("/api/sync/worker")) expect(res.status).toBe(200);
    }
  });

  it("reads no body before authorising: a wrong secret is a 401 whatever the body", async () => {
    const res = await send("/api/sync", "{", { authorization: "Bearer wrong" });
    expect(res.status).toBe(401);
  });
});
