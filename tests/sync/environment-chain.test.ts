import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { AUTH, mine, startTestDevnet } from "../helpers/anvil.js";
import type { TestApp } from "../helpers/app.js";

/**
 * A third local chain that no code names: an anvil with a chain id of its own, configured through the environment
 * only (CHAINS and the chain's variables, as an operator adding a network would), synced by the real cron route and
 * served by the native API like any other. The chain filter knows the names CHAINS gives when the functions load,
 * as on a deployment: hence CHAINS set in the process's environment and the app's modules loaded afresh after it.
 */

const CHAIN_ID = 31339;
let devnet: Devnet;
let app: TestApp;

beforeAll(async () => {
  devnet = await startTestDevnet({ chainId: CHAIN_ID });
  for (const location of ["11.5, 48.1", "2.35, 48.85"]) {
    await attest(devnet.rpcUrl, devnet.eas, [
      { data: encodeLocationProof({ locationType: "coordinate-decimal+lon-lat", location }) },
    ]);
  }
  await mine(devnet.rpcUrl, 3);
  process.env.CHAINS = "devnet3";
  vi.resetModules();
  const { createTestApp } = await import("../helpers/app.js");
  app = await createTestApp({
    CRON_SECRET: "test-secret",
    CHAINS: "devnet3",
    CHAIN_ID_DEVNET3: String(CHAIN_ID),
    DISPLAY_NAME_DEVNET3: "Local devnet 3",
    EAS_ADDRESS_DEVNET3: devnet.eas,
    SCHEMA_REGISTRY_ADDRESS_DEVNET3: devnet.schemaRegistry,
    RPC_URL_DEVNET3: devnet.rpcUrl,
    CONFIRMATIONS_DEVNET3: "1",
  });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await devnet?.stop();
  delete process.env.CHAINS;
});

describe("a network configured through the environment only", () => {
  it("is synced by the cron route and served by the native API, filter included", async () => {
    const sync = await app.get("/api/sync", { method: "POST", headers: AUTH });
    expect(sync.status).toBe(200);
    expect(sync.body.chains.map((c: { chain: string }) => c.chain)).toEqual(["devnet3"]);
    expect(sync.body.chains[0]).toMatchObject({ status: "ok", attestations: 2 });

    const list = await app.get("/api/v0/location-proofs?chain=devnet3");
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    for (const proof of list.body.data) expect(proof).toMatchObject({ chain: "devnet3", chain_id: CHAIN_ID });

    const config = await app.get("/api/v0/config");
    const entry = config.body.chains.find((c: { name: string }) => c.name === "devnet3");
    expect(entry).toMatchObject({ display_name: "Local devnet 3", chain_id: CHAIN_ID, enabled: true });
    expect(entry.sync).not.toBeNull();

    const status = await app.get("/api/sync/status", { headers: AUTH });
    expect(status.status).toBe(200);
    expect(JSON.stringify(status.body)).toContain("devnet3");
  });
});
