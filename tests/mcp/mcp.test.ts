import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../lib/local/http-server.js";
import { createRouter } from "../../lib/local/router.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, ROOT, type TestApp } from "../helpers/app.js";
import { recordingRouter } from "../helpers/contract.js";
import { compareWithNative, mcpClient } from "../helpers/mcp.js";

/**
 * The MCP endpoint through the official SDK's client over real HTTP (the local server, as `npm run dev` serves it):
 * its tools answer exactly as the native API answers the same question, bad arguments are tool errors that say what
 * is wrong, and the rate limit applies as on every public endpoint. The built output: tests/platform/parity.test.ts.
 */
const start = async (env: Record<string, string>) => {
  const app = await createTestApp({ CHAINS: "sepolia,base,arbitrum,celo", ...env });
  await insertProofs(app.db, sampleProofs({ count: 60, seed: 21 }));
  const { server, url } = await serve(recordingRouter(createRouter(ROOT)), 0);
  return { app, server, url };
};
const stop = async (s: { app: TestApp; server: Server } | undefined) => {
  await new Promise((resolve) => s?.server.close(resolve) ?? resolve(undefined));
  await s?.app.close();
};

describe("the MCP endpoint on the local server", () => {
  let site: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    site = await start({});
  });
  afterAll(() => stop(site));

  it("lists four tools and answers each as the native API does, bad arguments as tool errors", async () => {
    const client = await mcpClient(site.url);
    try {
      expect(client.getServerVersion()?.name).toBe("Location Proof Query Service");
      // The native answers over the same server, so that their links name the same origin.
      const compared = await compareWithNative(client, async (path) => {
        const res = await fetch(`${site.url}${path}`);
        return { status: res.status, body: await res.json() };
      });
      expect(compared).toBeGreaterThan(20);
    } finally {
      await client.close();
    }
  });

  it("is POST only: GET is a 405 naming POST, and a body that is not JSON-RPC is a 4xx, never a 500", async () => {
    const get = await fetch(`${site.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toMatch(/POST/);
    const garbage = await fetch(`${site.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{not json",
    });
    expect(garbage.status).toBeGreaterThanOrEqual(400);
    expect(garbage.status).toBeLessThan(500);
    const unknownTool = await fetch(`${site.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "nope", arguments: {} },
      }),
    });
    expect(unknownTool.status).toBe(200);
    expect(((await unknownTool.json()) as { error: { message: string } }).error.message).toMatch(
      /Unknown tool 'nope'/,
    );
  });
});

describe("the MCP endpoint is rate limited like every public endpoint", () => {
  let site: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    site = await start({ RATE_LIMIT_PER_MINUTE: "3" });
  });
  afterAll(() => stop(site));

  it("answers 429 with Retry-After once the client's budget is spent", async () => {
    const call = () =>
      fetch(`${site.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call()).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
