import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { type RpcProxy, startRpcProxy } from "../../lib/devnet/rpc-proxy.js";
import { mine, oneDevnet, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { devnetSyncConfig, syncService } from "../helpers/sync-service.js";
import { usingPostgres } from "../helpers/test-db.js";

/**
 * One writer per chain. Two invocations must run truly concurrently, on separate database sessions: PGlite is a
 * single session (everything serialises through it), so this file runs in CI's PostgreSQL pass only.
 */
describe.skipIf(!usingPostgres())("lease: one writer per chain (PostgreSQL)", () => {
  let devnet: Devnet;
  let app: TestApp;
  let proxy: RpcProxy;
  const TOTAL = 40;

  beforeAll(async () => {
    devnet = await startTestDevnet();
    // Latency makes the first run hold its lease long enough for the second to meet it.
    proxy = await startRpcProxy({ target: devnet.rpcUrl, delayMs: 150 });
    app = await createTestApp(oneDevnet(proxy.url));
    const items = Array.from({ length: TOTAL }, (_, i) => ({
      data: encodeLocationProof({
        locationType: "DecimalDegrees<string>",
        location: `${i}, 1`,
        memo: `#${i}`,
      }),
    }));
    await attest(devnet.rpcUrl, devnet.eas, items, { chunk: 10 });
    await mine(devnet.rpcUrl, 3);
  });
  endAfterAll(() => [app, proxy, devnet]);

  const service = () =>
    syncService(app, { config: devnetSyncConfig(proxy.url), options: { commitSize: 10, readBatchSize: 10 } });

  it("two concurrent runs: one indexes, the other is skipped naming the lease holder; no duplicates", async () => {
    const [a, b] = await Promise.all([service().sync("cron"), service().sync("cron")]);
    const results = [a.chains[0]!, b.chains[0]!];
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual(["ok", "skipped"]);
    const skipped = results.find((r) => r.status === "skipped")!;
    expect(skipped.reason).toMatch(/^lease held by .+ until /);
    expect(results.find((r) => r.status === "ok")!.attestations).toBe(TOTAL);
    const [c] = await queryRows<{ n: number; d: number }>(
      app.db,
      sql`select count(*)::int as n, count(distinct uid)::int as d from location_proofs`,
    );
    expect(c).toEqual({ n: TOTAL, d: TOTAL });
  });

  it("two concurrent runs of one service (a cron tick meeting a manual sync) meet at the lease as well", async () => {
    await app.db.execute(sql`truncate location_proofs, sync_state, sync_blocks, sync_runs`);
    const shared = service();
    const [a, b] = await Promise.all([shared.sync("cron"), shared.sync("manual")]);
    expect([a.chains[0]!.status, b.chains[0]!.status].sort()).toEqual(["ok", "skipped"]);
    const [c] = await queryRows<{ n: number; d: number }>(
      app.db,
      sql`select count(*)::int as n, count(distinct uid)::int as d from location_proofs`,
    );
    expect(c).toEqual({ n: TOTAL, d: TOTAL });
  });

  it("an expired lease (a writer that died) is taken over", async () => {
    await app.db.execute(
      sql`update sync_state set lease_owner = 'dead-writer', lease_expires_at = now() - interval '1 second'`,
    );
    const report = await service().sync("cron");
    expect(report.chains[0]!.status).toBe("ok");
  });

  it("a live lease held by another writer is respected", async () => {
    await app.db.execute(
      sql`update sync_state set lease_owner = 'other-writer', lease_expires_at = now() + interval '1 minute'`,
    );
    const report = await service().sync("cron");
    expect(report.chains[0]).toMatchObject({ status: "skipped" });
    expect(report.chains[0]!.reason).toContain("other-writer");
    expect(report.status).toBe("ok");
    await app.db.execute(sql`update sync_state set lease_owner = null, lease_expires_at = null`);
  });
});
