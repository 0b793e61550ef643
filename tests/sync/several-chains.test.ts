import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { queryRows } from "../../db/client.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { type RpcProxy, startRpcProxy } from "../../lib/devnet/rpc-proxy.js";
import { getSyncService } from "../../lib/sync/service.js";
import { AUTH, bothDevnets, DEVNET_IDS, mine, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/**
 * Two chains (two anvils, two chain ids) synced at once through the real routes: each chain's run counts its own RPC
 * requests only, bookkeeping that fails after the work is logged rather than swallowed, and the routes share one
 * sync service (its chain clients serve every request after the first).
 */
let chains: { devnet: Devnet; proxy: RpcProxy }[] = [];
let app: TestApp;
let env: Record<string, string>;

const post = (path: string) => app.get(path, { method: "POST", headers: AUTH });

beforeAll(async () => {
  for (const chainId of [DEVNET_IDS.devnet!, DEVNET_IDS.devnet2!]) {
    const devnet = await startTestDevnet({ chainId });
    // Latency, so the two chains' runs overlap for many requests.
    const proxy = await startRpcProxy({ target: devnet.rpcUrl, delayMs: 25 });
    chains.push({ devnet, proxy });
  }
  for (const [i, { devnet }] of chains.entries()) {
    // A different number of blocks and attestations per chain, so their request counts differ.
    for (let block = 0; block < 3 + 3 * i; block++) {
      await attest(devnet.rpcUrl, devnet.eas, [
        {
          data: encodeLocationProof({
            locationType: "coordinate-decimal+lon-lat",
            location: `${block}, ${i}`,
          }),
        },
      ]);
    }
    await mine(devnet.rpcUrl, 3);
  }
  env = bothDevnets(chains[0]!.proxy.url, chains[1]!.proxy.url);
  app = await createTestApp(env);
}, 120_000);
afterAll(async () => {
  await app?.close();
  for (const { devnet, proxy } of chains) {
    await proxy.close();
    await devnet.stop();
  }
  chains = [];
});

describe("two chains syncing at once", () => {
  it("each chain's rpc_requests counts that chain's requests only", async () => {
    for (const { proxy } of chains) proxy.requests = 0;
    const res = await post("/api/sync");
    expect(res.status).toBe(200);
    const byChain = Object.fromEntries(res.body.chains.map((c: { chain: string }) => [c.chain, c]));
    expect(byChain.devnet.status).toBe("ok");
    expect(byChain.devnet2.status).toBe("ok");
    expect(byChain.devnet.attestations).toBe(3);
    expect(byChain.devnet2.attestations).toBe(6);
    // Each proxy saw exactly its chain's requests (and nothing else ran meanwhile).
    expect(byChain.devnet.rpc_requests).toBe(chains[0]!.proxy.requests);
    expect(byChain.devnet2.rpc_requests).toBe(chains[1]!.proxy.requests);
    const runs = await queryRows<{ chain: string; rpc_requests: number }>(
      app.db,
      sql`select chain, rpc_requests from sync_runs where kind = 'sync' order by id desc limit 2`,
    );
    expect(Object.fromEntries(runs.map((r) => [r.chain, r.rpc_requests]))).toEqual({
      devnet: chains[0]!.proxy.requests,
      devnet2: chains[1]!.proxy.requests,
    });
  });

  it("the routes share one sync service: its runs come from one instance, each run a writer of its own", async () => {
    expect(await getSyncService()).toBe(await getSyncService());
    await post("/api/sync");
    await post("/api/sync?chain=devnet2");
    const owners = (
      await queryRows<{ owner: string }>(
        app.db,
        sql`select owner from sync_runs where kind = 'sync' order by id`,
      )
    ).map((r) => r.owner);
    expect(owners.length).toBe(5);
    // host:pid:instance:run — one instance, a run number each.
    const instances = new Set(owners.map((o) => o.split(":").slice(0, 3).join(":")));
    expect(instances.size).toBe(1);
    expect(new Set(owners).size).toBe(owners.length);
    // A new configuration is a new service.
    const before = await getSyncService();
    setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0", ...env }));
    expect(await getSyncService()).not.toBe(before);
  });

  it("a failure after the work (the run history cannot be written) is logged, not swallowed", async () => {
    setConfig(loadConfig({ RATE_LIMIT_PER_MINUTE: "0", ...env, LOG_LEVEL: "warn" }));
    // A real database fault on demand: closing a run row now violates a constraint.
    await app.db.execute(
      sql`alter table sync_runs add constraint runs_never_finish check (finished_at is null) not valid`,
    );
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      expect((await post("/api/sync")).status).toBe(200);
      expect((await post("/api/sync/revocations")).status).toBe(200);
    } finally {
      spy.mockRestore();
      await app.db.execute(sql`alter table sync_runs drop constraint runs_never_finish`);
      setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0", ...env }));
    }
    const logged = lines.map(
      (l) => JSON.parse(l) as { level: string; msg: string; chain?: string; error?: unknown },
    );
    const runHistory = logged.filter((l) => l.msg === "sync: run history not written");
    expect(runHistory.map((l) => l.chain).sort()).toEqual(["devnet", "devnet2"]);
    expect(runHistory[0]!.level).toBe("warn");
    expect(JSON.stringify(runHistory[0]!.error)).toContain("runs_never_finish");
    const reconcile = logged.filter((l) => l.msg === "revocation reconciliation: run history not written");
    expect(reconcile.map((l) => l.chain).sort()).toEqual(["devnet", "devnet2"]);
  });
});
