import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { DEVNET_SCHEMA_UIDS } from "../../lib/devnet/schemas.js";
import { pendingRemovals, performRemoval, queueProofRemoval } from "../../lib/sync/removal.js";
import { AUTH, DEVNET_IDS, mine } from "../helpers/anvil.js";
import type { TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { devnetSyncConfig, syncedDevnetWithCopies, syncService } from "../helpers/sync-service.js";

/**
 * An operator's removal (scripts/remove-proofs.ts, lib/sync/removal.ts): queued with what it matches, then deleted in
 * batches — by the chain's sync runs after their indexing, or by the script itself under the chain's lease — each
 * batch one transaction, the count tables exact after every batch, the status showing what remains. The schema's
 * rows are synthetic copies of a real one (new uids), so that there are many without writing them on chain.
 */
const SYNTHETIC = 1_000;
const BATCH = 300;
const { appendix } = DEVNET_SCHEMA_UIDS;
const chain = { chainId: DEVNET_IDS.devnet!, name: "devnet" };

let devnet: Devnet;
let app: TestApp;

const sync = async () =>
  (
    await syncService(app, {
      config: devnetSyncConfig(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0" }),
      options: { deleteBatchSize: BATCH, deleteBatchesPerRun: 1 },
    }).sync("manual")
  ).chains[0]!;
const counted = async () =>
  (
    await queryRows<{ schema_rows: number; total: number; counted_total: number }>(
      app.db,
      sql`select (select count(*)::int from location_proofs where schema_uid = ${appendix}) as schema_rows,
                 (select count(*)::int from location_proofs) as total,
                 (select coalesce(sum(n), 0)::int from proof_counts) as counted_total`,
    )
  )[0]!;
const removalsInStatus = async () => {
  const status = await app.get("/api/sync/status", { headers: AUTH });
  return status.body.chains.find((c: { chain: string }) => c.chain === "devnet").deletes.removals as {
    id: number;
    rows_total: number;
    rows_left: number;
  }[];
};

beforeAll(async () => {
  ({ devnet, app } = await syncedDevnetWithCopies({ count: SYNTHETIC, uidPrefix: "cc" }));
}, 120_000);
endAfterAll(() => [app, devnet]);

describe("an operator's removal", () => {
  it("queued for a schema: the sync runs delete it a batch per run, counts exact, status shows what remains", async () => {
    const start = await counted();
    expect(start.schema_rows).toBeGreaterThan(SYNTHETIC);
    const queued = await queueProofRemoval(app.db, chain, { schemaUid: appendix }, "test");
    expect(queued.rowsTotal).toBe(start.schema_rows);
    expect(await removalsInStatus()).toMatchObject([{ id: queued.id, rows_left: start.schema_rows }]);

    const data = encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "7.5, 8.5" });
    const runs = [];
    for (let i = 0; i < Math.ceil(start.schema_rows / BATCH) + 2; i++) {
      await attest(devnet.rpcUrl, devnet.eas, [{ data }]);
      await mine(devnet.rpcUrl, 1);
      const run = await sync();
      runs.push(run);
      // Indexing goes on meanwhile: every run indexes the new proof of another schema.
      expect(run.attestations).toBe(1);
      expect(run.schemas.rows_removed).toBeLessThanOrEqual(BATCH);
      const now = await counted();
      expect(now.counted_total).toBe(now.total);
      const removals = await removalsInStatus();
      if (now.schema_rows === 0 && removals.length === 0) break;
      expect(run.status).toBe("partial");
      expect(removals).toMatchObject([{ id: queued.id, rows_left: now.schema_rows }]);
    }
    expect(runs.length).toBe(Math.ceil(start.schema_rows / BATCH));
    expect(runs.at(-1)!.status).toBe("ok");
    expect((await counted()).schema_rows).toBe(0);
  });

  it("of listed uids, by the script's own batches: waits for the lease, reports progress, counts exact", async () => {
    const uids = (
      await queryRows<{ uid: string }>(app.db, sql`select uid from location_proofs order by uid limit 5`)
    ).map((r) => r.uid);
    const before = await counted();
    const item = await queueProofRemoval(app.db, chain, { uids: [...uids, `0x${"ab".repeat(32)}`] }, "test");
    expect(item.rowsTotal).toBe(5);
    // Another writer holds the chain: the removal waits for it.
    await app.db.execute(
      sql`update sync_state set lease_owner = 'a sync run', lease_expires_at = now() + interval '1 minute'
           where chain_id = ${chain.chainId}`,
    );
    const waits: (string | null)[] = [];
    const progress: number[] = [];
    // (A drizzle query runs when it is awaited, hence the `then`.)
    const release = setTimeout(() => {
      app.db
        .execute(
          sql`update sync_state set lease_owner = null, lease_expires_at = null where chain_id = ${chain.chainId}`,
        )
        .then(() => {});
    }, 1_500);
    const r = await performRemoval({
      db: app.db,
      chainId: chain.chainId,
      item,
      owner: "remove-proofs:test",
      batch: 2,
      leaseMs: 30_000,
      statementTimeoutMs: 8_000,
      stepMs: 20_000,
      onWait: (holder) => waits.push(holder),
      onBatch: (p) => progress.push(p.deleted),
    });
    clearTimeout(release);
    expect(waits[0]).toBe("a sync run");
    expect(r).toEqual({ deleted: 5, done: true });
    expect(progress).toEqual([2, 4, 5]);
    const after = await counted();
    expect(after.total).toBe(before.total - 5);
    expect(after.counted_total).toBe(after.total);
    expect(await pendingRemovals(app.db, chain.chainId)).toEqual([]);
    const [lease] = await queryRows<{ owner: string | null }>(
      app.db,
      sql`select lease_owner as owner from sync_state where chain_id = ${chain.chainId}`,
    );
    expect(lease!.owner).toBeNull();
  });
});
