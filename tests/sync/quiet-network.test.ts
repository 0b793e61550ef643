import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { getConfig } from "../../lib/config.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { type RpcProxy, startRpcProxy } from "../../lib/devnet/rpc-proxy.js";
import {
  DEVNET_SCHEMA_UIDS,
  DEVNET_SCHEMAS,
  encodeRecord,
  registerSchemas,
} from "../../lib/devnet/schemas.js";
import type { SyncService } from "../../lib/sync/service.js";
import { blockNumber, mine, rpc, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { syncService } from "../helpers/sync-service.js";

/**
 * What a network with nothing new costs (issue #36: at most two RPC requests per cron run), counted by a real proxy
 * in front of anvil (lib/devnet/rpc-proxy.ts counts HTTP requests and the JSON-RPC calls in them; no fault injected),
 * and that the cheap run still sees what it must: a new attestation, a schema registered in the same range, a reorg.
 */
const CONFIRMATIONS = 2;

let devnet: Devnet;
let proxy: RpcProxy;
let app: TestApp;
let service: SyncService;

const proof = (memo: string) =>
  encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "3.5, 4.5", memo });

/** One sync run, with the proxy's counts of it. */
async function counted() {
  proxy.requests = 0;
  proxy.calls = {};
  const chain = (await service.sync("cron")).chains[0]!;
  return { chain, requests: proxy.requests, calls: { ...proxy.calls } };
}

const stored = async () =>
  (await queryRows<{ n: number }>(app.db, sql`select count(*)::int as n from location_proofs`))[0]!.n;

beforeAll(async () => {
  devnet = await startTestDevnet();
  proxy = await startRpcProxy({ target: devnet.rpcUrl });
  app = await createTestApp({
    CHAINS: "devnet",
    RPC_URL_DEVNET: proxy.url,
    CONFIRMATIONS_DEVNET: String(CONFIRMATIONS),
  });
  service = syncService(app);
  await attest(devnet.rpcUrl, devnet.eas, [{ data: proof("first") }]);
  await mine(devnet.rpcUrl, CONFIRMATIONS);
  // Catch up (the first runs read the history in ranges of their own).
  for (let i = 0; i < 5; i++) if ((await service.sync("manual")).chains[0]!.status === "ok") break;
  expect(await stored()).toBe(1);
}, 120_000);
endAfterAll(() => [app, proxy, devnet]);

describe("a quiet network", () => {
  it("costs at most two RPC requests per run, and its cursor still moves to the confirmed head", async () => {
    for (const blocks of [1, 5, 30]) {
      await mine(devnet.rpcUrl, blocks);
      const { chain, requests, calls } = await counted();
      expect(chain.status).toBe("ok");
      expect(chain.attestations).toBe(0);
      expect(requests).toBeLessThanOrEqual(2);
      expect(chain.rpc_requests).toBe(requests);
      // The head, the reorg check, one eth_getLogs over both contracts, the new cursor's hash.
      expect(calls.eth_blockNumber).toBe(1);
      expect(calls.eth_getLogs).toBe(1);
      expect(calls.eth_getBlockByNumber).toBe(2);
      const head = await blockNumber(devnet.rpcUrl);
      expect(chain.cursor_block).toBe(head - CONFIRMATIONS);
      expect(chain.schema_cursor_block).toBe(head - CONFIRMATIONS);
    }
  });

  it("with no new confirmed block, one request", async () => {
    await counted(); // up to date
    const { chain, requests } = await counted();
    expect(chain.status).toBe("ok");
    expect(requests).toBe(1);
  });

  it("an allowed schema the registry does not know is asked beside the logs, then left to discovery", async () => {
    const config = getConfig();
    const unknownUid = `0x${"ab".repeat(32)}`;
    const allowing = syncService(app, {
      config,
      options: {
        schemaPolicy: { ...config.schemas, allow: new Set([...config.schemas.allow, unknownUid]) },
      },
    });
    const run = async () => {
      await mine(devnet.rpcUrl, 3);
      proxy.requests = 0;
      proxy.calls = {};
      const chain = (await allowing.sync("cron")).chains[0]!;
      return { chain, requests: proxy.requests, calls: { ...proxy.calls } };
    };
    const first = await run();
    expect(first.chain.status).toBe("ok");
    expect(first.requests).toBeLessThanOrEqual(2);
    expect(first.calls.eth_call).toBe(1); // getSchema through Multicall3, in the second request
    const second = await run();
    expect(second.requests).toBeLessThanOrEqual(2);
    expect(second.calls.eth_call).toBeUndefined();
  });

  it("the same two requests find a new attestation, and a schema registered in the same range with its attestations", async () => {
    const before = await stored();
    await registerSchemas(devnet.rpcUrl, devnet.schemaRegistry, [DEVNET_SCHEMAS.appendix]);
    await attest(devnet.rpcUrl, devnet.eas, [{ data: proof("second") }]);
    await attest(
      devnet.rpcUrl,
      devnet.eas,
      [
        {
          data: encodeRecord(DEVNET_SCHEMAS.appendix, {
            srs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
            location_type: "geojson-point",
            location: JSON.stringify({ type: "Point", coordinates: [1, 2] }),
            lp_version: 1,
          }),
        },
      ],
      { schemaUid: DEVNET_SCHEMA_UIDS.appendix },
    );
    await mine(devnet.rpcUrl, CONFIRMATIONS);
    const { chain, calls } = await counted();
    expect(chain.status).toBe("ok");
    expect(chain.schemas.found).toBe(1);
    expect(chain.attestations).toBe(2);
    expect(await stored()).toBe(before + 2);
    // Still one eth_getLogs: discovery and the stream read the same answer.
    expect(calls.eth_getLogs).toBe(1);
  });

  it("a reorg beneath the cursor is still detected by the cheap run's check", async () => {
    const before = await stored();
    const snapshot = await rpc<string>(devnet.rpcUrl, "evm_snapshot");
    await attest(devnet.rpcUrl, devnet.eas, [{ data: proof("orphaned") }]);
    await mine(devnet.rpcUrl, CONFIRMATIONS);
    expect((await counted()).chain.attestations).toBe(1);
    expect(await stored()).toBe(before + 1);
    // The chain goes back, and grows past the old height without that attestation.
    await rpc(devnet.rpcUrl, "evm_revert", [snapshot]);
    await mine(devnet.rpcUrl, CONFIRMATIONS + 3);
    const { chain } = await counted();
    expect(chain.rewound_blocks).toBeGreaterThan(0);
    expect(await stored()).toBe(before);
  });
});
