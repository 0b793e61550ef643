import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { type RpcProxy, startRpcProxy } from "../../lib/devnet/rpc-proxy.js";
import { mine, oneDevnet, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { syncService } from "../helpers/sync-service.js";

/**
 * A provider with a lagging node: the proxy (lib/devnet/rpc-proxy.ts, `lag`) answers every other HTTP request as a
 * node LAG blocks behind, more than the confirmations, as a round-robin load balancer with one slow node does. The
 * lagging answers are drawn from a seeded generator; the lag is real behaviour of a real proxy in front of anvil; nothing in the engine is mocked.
 */
const LAG = 6;
const CONFIRMATIONS = 2;

let devnet: Devnet;
let proxy: RpcProxy;
const apps: TestApp[] = [];
/** every attestation written on the devnet by this file: each app indexes the chain from its start */
const written: string[] = [];

const proofData = (memo: string) =>
  encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "1.5, 2.5", memo });

beforeAll(async () => {
  devnet = await startTestDevnet();
  proxy = await startRpcProxy({ target: devnet.rpcUrl, lag: { blocks: LAG, share: 0.5 } });
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await proxy?.close();
  await devnet?.stop();
});

/**
 * Writes attestations while the node lags, syncing after each and polling the API all along: every attestation is
 * indexed within a few runs, no run rewinds, and the API never shows fewer proofs than it once did.
 */
async function syncThroughLag(rpcUrl: string) {
  const app = await createTestApp(oneDevnet(rpcUrl, { CONFIRMATIONS_DEVNET: String(CONFIRMATIONS) }));
  apps.push(app);
  const service = syncService(app);
  const count = async () =>
    (await app.get("/api/v0/location-proofs?limit=1")).body.pagination.total as number;
  let seen = 0;
  let dropped = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const n = await count();
      if (n < seen) dropped++;
      seen = Math.max(seen, n);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const runs = [];
  try {
    for (let i = 0; i < 8; i++) {
      written.push(...(await attest(devnet.rpcUrl, devnet.eas, [{ data: proofData(`lag ${i}`) }])));
      await mine(devnet.rpcUrl, 2);
      runs.push((await service.sync("manual")).chains[0]!);
    }
    // Confirm the last ones, then a few more runs: everything written is indexed.
    await mine(devnet.rpcUrl, CONFIRMATIONS + LAG);
    for (let i = 0; i < 4 && (await count()) < written.length; i++)
      runs.push((await service.sync("manual")).chains[0]!);
  } finally {
    polling = false;
    await poller;
  }
  return { runs, total: await count(), dropped };
}

describe("a lagging RPC node is not a reorg", () => {
  it("round-robin provider with one node LAG blocks behind: the chain keeps indexing, nothing is deleted", async () => {
    const lagged = proxy.lagged;
    const { runs, total, dropped } = await syncThroughLag(proxy.url);
    expect(proxy.lagged - lagged).toBeGreaterThan(10);
    expect(runs.filter((r) => r.rewound_blocks > 0)).toEqual([]);
    // A run may stop early to wait for the lagging node ("partial"); none fails.
    expect(runs.filter((r) => r.status === "error").map((r) => r.error)).toEqual([]);
    expect(total).toBe(written.length);
    expect(dropped).toBe(0);
    // Indexed during the lag, not only after: most runs of the loop wrote something.
    expect(runs.slice(0, 8).filter((r) => r.attestations > 0).length).toBeGreaterThanOrEqual(4);
  });

  it("viem fallback over two endpoints, the first behind a lagging node: the second answers what the first lacks", async () => {
    const { runs, total, dropped } = await syncThroughLag(`${proxy.url},${devnet.rpcUrl}`);
    expect(runs.filter((r) => r.rewound_blocks > 0)).toEqual([]);
    expect(runs.filter((r) => r.status !== "ok").map((r) => r.error)).toEqual([]);
    expect(total).toBe(written.length);
    expect(dropped).toBe(0);
  });
});
