import { beforeAll, describe, expect, it } from "vitest";
import type { Devnet } from "../../lib/devnet/index.js";
import { freePort } from "../../lib/devnet/index.js";
import { AUTH, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";

let devnet: Devnet;
let app: TestApp | undefined;
let deadRpc: string;

beforeAll(async () => {
  devnet = await startTestDevnet();
  deadRpc = `http://127.0.0.1:${await freePort()}`; // nothing listens there
});
endAfterAll(() => [app, devnet]);

const withChains = async (env: Record<string, string>) => {
  await app?.close();
  app = await createTestApp({ CRON_SECRET: "test-secret", RPC_URL_DEVNET: devnet.rpcUrl, ...env });
  return app;
};

describe("cron status codes", () => {
  it("207 when some chains fail, listing the failures; the others are still synced", async () => {
    const a = await withChains({ CHAINS: "devnet,sepolia", RPC_URL_SEPOLIA: deadRpc });
    const res = await a.get("/api/cron/sync", { headers: AUTH });
    expect(res.status).toBe(207);
    expect(res.body.status).toBe("partial_failure");
    expect(res.body.failures).toHaveLength(1);
    expect(res.body.failures[0].chain).toBe("sepolia");
    expect(res.body.failures[0].error).toBeTruthy();
    const byChain = Object.fromEntries(res.body.chains.map((c: { chain: string }) => [c.chain, c]));
    expect(byChain.devnet.status).toBe("ok");
    expect(byChain.sepolia.status).toBe("error");
    // The failure is in the run history and the status endpoint, not only in this response.
    const status = await a.get("/api/sync/status", { headers: AUTH });
    const sepolia = status.body.chains.find((c: { chain: string }) => c.chain === "sepolia");
    expect(sepolia.last_run.status).toBe("error");
    expect(sepolia.head_block).toBeNull();
  });

  it("500 when every chain fails", async () => {
    const a = await withChains({ CHAINS: "sepolia", RPC_URL_SEPOLIA: deadRpc });
    const res = await a.get("/api/cron/sync", { headers: AUTH });
    expect(res.status).toBe(500);
    expect(res.body.status).toBe("failed");
    // POST is the manual trigger of the same job.
    expect((await a.get("/api/cron/sync", { method: "POST", headers: AUTH })).status).toBe(500);
  });

  it("POST /api/sync/revocations follows the same rule: 207 when some chains fail, 500 when all do", async () => {
    const a = await withChains({ CHAINS: "devnet,sepolia", RPC_URL_SEPOLIA: deadRpc });
    const some = await a.get("/api/sync/revocations", { method: "POST", headers: AUTH });
    expect(some.status).toBe(207);
    const byChain = Object.fromEntries(some.body.chains.map((c: { chain: string }) => [c.chain, c]));
    expect(byChain.devnet.status).toBe("ok");
    expect(byChain.sepolia.status).toBe("error");
    const b = await withChains({ CHAINS: "sepolia", RPC_URL_SEPOLIA: deadRpc });
    expect((await b.get("/api/sync/revocations", { method: "POST", headers: AUTH })).status).toBe(500);
  });
});
