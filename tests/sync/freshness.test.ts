import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig, setConfig } from "../../lib/config.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { AUTH, blockNumber, mine, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";

/**
 * Public freshness, with the real sync engine on a real chain (anvil + EAS): /health and /api/v0/config show per
 * enabled chain the last indexed block, its time and the lag behind the head the last run saw; /health turns
 * `degraded` (still 200) when a chain stops syncing for longer than SYNC_STALE_AFTER_SECONDS, and `ok` again once it
 * syncs.
 */
let devnet: Devnet;
let app: TestApp;
const ENV = {
  CRON_SECRET: "test-secret",
  CHAINS: "devnet",
  LOG_LEVEL: "silent",
  RATE_LIMIT_PER_MINUTE: "0",
};

beforeAll(async () => {
  devnet = await startTestDevnet({ seed: true });
  app = await createTestApp({ ...ENV, RPC_URL_DEVNET: devnet.rpcUrl });
  await mine(devnet.rpcUrl, 3);
});
endAfterAll(() => [app, devnet]);

const withThreshold = (seconds: number) =>
  setConfig(loadConfig({ ...ENV, RPC_URL_DEVNET: devnet.rpcUrl, SYNC_STALE_AFTER_SECONDS: String(seconds) }));
const sync = () => app.get("/api/sync?chain=devnet", { method: "POST", headers: AUTH });

describe("freshness in /health and /api/v0/config", () => {
  it("before the first sync, the enabled chain is never_synced and /health is degraded (200)", async () => {
    const res = await app.get("/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("degraded");
    expect(res.body.checks.sync).toMatchObject({
      status: "degraded",
      stale_after_seconds: 600,
      chains: [{ chain: "devnet", status: "never_synced", last_indexed_block: null, last_synced_at: null }],
      problems: ["devnet has never completed a sync"],
    });
    const config = await app.get("/api/v0/config");
    const devnetConfig = config.body.chains.find((c: { name: string }) => c.name === "devnet");
    expect(devnetConfig.sync).toMatchObject({ status: "never_synced", last_indexed_block: null });
    // Chains this deployment does not sync carry no freshness.
    const others = config.body.chains.filter((c: { enabled: boolean }) => !c.enabled);
    expect(others.length).toBeGreaterThan(3);
    expect(others.map((c: { sync: unknown }) => c.sync)).toEqual(others.map(() => null));
  });

  it("after a sync: ok, with the last indexed block, its time and the lag behind the head the run saw", async () => {
    const synced = await sync();
    expect(synced.status).toBe(200);
    const head = await blockNumber(devnet.rpcUrl);
    const cursor = synced.body.chains[0].cursor_block as number;
    const res = await app.get("/health");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ok");
    const [chain] = res.body.checks.sync.chains;
    expect(chain).toMatchObject({
      chain: "devnet",
      chain_id: 31337,
      status: "ok",
      last_indexed_block: cursor,
      head_block: head,
      lag_blocks: head - cursor,
      paused: false,
    });
    // Caught up, the lag is the chain's confirmations (2 on the devnet).
    expect(chain.lag_blocks).toBe(2);
    expect(Date.parse(chain.last_indexed_block_time)).toBeGreaterThan(Date.now() - 600_000);
    expect(chain.seconds_since_sync).toBeLessThanOrEqual(5);
    expect(res.body.checks.sync.problems).toBeUndefined();
    const config = await app.get("/api/v0/config");
    const devnetConfig = config.body.chains.find((c: { name: string }) => c.name === "devnet");
    expect(devnetConfig.sync).toMatchObject({ status: "ok", last_indexed_block: cursor, lag_blocks: 2 });
    expect(config.body.limits.sync_stale_after_seconds).toBe(600);
    // Public: no RPC URL, no lease holder, nothing from the environment.
    for (const body of [res.body, config.body]) {
      expect(JSON.stringify(body)).not.toContain(devnet.rpcUrl);
      expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|lease|holder|test-secret/);
    }
  });

  it("a chain that stops syncing turns /health degraded past the threshold, and ok again when it syncs", async () => {
    withThreshold(1);
    try {
      await mine(devnet.rpcUrl, 5);
      // No sync for more than a second.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const stale = await app.get("/health");
      expect(stale.status).toBe(200);
      expect(stale.body.status).toBe("degraded");
      expect(stale.body.checks.sync.stale_after_seconds).toBe(1);
      expect(stale.body.checks.sync.chains[0]).toMatchObject({ chain: "devnet", status: "stale" });
      expect(stale.body.checks.sync.chains[0].seconds_since_sync).toBeGreaterThanOrEqual(2);
      expect(stale.body.checks.sync.problems).toEqual([
        expect.stringMatching(/^devnet has not synced since \S+Z \(\d+ s > 1 s\)$/),
      ]);
      expect(stale.headers.get("cache-control")).toBe("no-store");
      expect((await sync()).status).toBe(200);
      const fresh = await app.get("/health");
      expect(fresh.body.status).toBe("ok");
      expect(fresh.body.checks.sync.chains[0].status).toBe("ok");
    } finally {
      withThreshold(600);
    }
  });

  it("SYNC_STALE_AFTER_SECONDS is validated like every setting", () => {
    expect(() => loadConfig({ SYNC_STALE_AFTER_SECONDS: "0" })).toThrow(
      /SYNC_STALE_AFTER_SECONDS must be at least 1/,
    );
    expect(() => loadConfig({ SYNC_STALE_AFTER_SECONDS: "ten" })).toThrow(
      /SYNC_STALE_AFTER_SECONDS must be a whole number/,
    );
    expect(loadConfig({ SYNC_STALE_AFTER_SECONDS: "90" }).syncStaleAfterSeconds).toBe(90);
  });
});
