import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { MAX_JSON_BODY_BYTES, readJsonBody } from "../lib/http/body.js";
import { errorResponse } from "../lib/http/respond.js";

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
