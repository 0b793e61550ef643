import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { attest, revoke } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { copyProof } from "../../lib/devnet/proof-copies.js";
import { DEVNET_SCHEMA_UIDS } from "../../lib/devnet/schemas.js";
import { attestAcrossFork, blockNumber, mine, oneDevnet, rpc, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { devnetSyncConfig, syncedDevnetWithCopies, syncService } from "../helpers/sync-service.js";
import { buildSyncWorkers, type SyncWorker, type SyncWorkers } from "../helpers/sync-worker.js";

/**
 * A run killed at any step of the batched work (issue #33) leaves the database as if that run had not started, or as
 * if it had finished a batch: a denied schema's delete batches, a deep rewind (its first transaction, its row
 * batches, the batch that undoes its revocations) and reconciliation pages. The writer is a real process
 * (tests/helpers/serve-sync-child.ts) killed with SIGKILL at two kinds of point:
 * - inside a batch's transaction: the test holds a row lock that the batch's next statement needs (its count-table
 *   row, a stored block hash, the orphaned rows, a proof to mark revoked), waits until the worker's statement waits
 *   for it, kills the worker, then lets go; what the batch had written must be gone;
 * - right after a batch committed (the worker prints a line per batch): the kill lands between batches or early in
 *   the next one.
 * After every kill the database must be at a batch boundary, the count tables equal to count(*); then the next runs
 * finish the work. The earlier suites kill only indexing (killed-worker, killed-writer, protocol-e2e).
 *
 * PostgreSQL only: the kill inside a transaction needs a second session holding a lock while the worker's waits,
 * and the embedded PGlite is one session (served to the worker over pglite-socket it would serialise the two);
 * CI runs this on its PostgreSQL pass.
 */
const PG = process.env.DATABASE_URL;
const BATCH = 300;
/** Small pages: the devnet's few dozen real proofs, among them the revoked ones, span several. */
const PAGE = 10;
const LEASE_MS = 1_000;
const OPTIONS = {
  deleteBatchSize: BATCH,
  reconcilePageSize: PAGE,
  leaseMs: LEASE_MS,
  timeBudgetMs: 60_000,
};
const { appendix } = DEVNET_SCHEMA_UIDS;

let workers: SyncWorkers;

/** A session of the test's own that holds `lock` (a `select … for update`) until `release`. */
async function holdLock(app: TestApp, lock: string): Promise<{ pid: number; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: (app.handle as { url?: string }).url! });
  await client.connect();
  await client.query("begin");
  await client.query(lock);
  const pid = (await client.query("select pg_backend_pid() as pid")).rows[0].pid as number;
  return {
    pid,
    release: async () => {
      await client.query("rollback");
      await client.end();
    },
  };
}

/** Waits until a session waits for the lock that session `holder` holds (the worker, inside its batch's transaction). */
async function waitForLockWait(app: TestApp, holder: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [row] = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from pg_stat_activity
           where datname = current_database() and ${holder}::int = any(pg_blocking_pids(pid))`,
    );
    if (row!.n > 0) return;
    if (Date.now() > deadline) throw new Error("the worker never waited for the test's lock");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A worker of the test's database and devnet, printing a line per batch. */
const startWorker = (app: TestApp, devnet: Devnet, env: Record<string, string> = {}): SyncWorker =>
  workers.start({
    dbUrl: (app.handle as { url?: string }).url!,
    rpcUrl: devnet.rpcUrl,
    options: OPTIONS,
    env: { CONFIRMATIONS_DEVNET: "0", SYNC_BATCH_LINES: "1", SYNC_BATCH_PAUSE_MS: "60000", ...env },
  });

/** Kills a worker inside the transaction of its next batch: the batch's statement waits for `lock` when killed. */
async function killInsideBatch(
  app: TestApp,
  start: (env?: Record<string, string>) => SyncWorker,
  lock: string,
): Promise<void> {
  const held = await holdLock(app, lock);
  // No pause after a batch: the batches before the one that waits for the lock commit.
  const worker = start({ SYNC_BATCH_PAUSE_MS: "0" });
  try {
    await worker.ready;
    await waitForLockWait(app, held.pid);
  } finally {
    await worker.kill();
    // The killed worker's session gets the lock, finds its client gone and rolls its transaction back: it can
    // never commit, since nothing more comes from the dead client.
    await held.release();
  }
}

/** Kills a worker right after its first committed batch of `kind` (it waits after each: the kill lands between two). */
async function killAfterBatch(start: () => SyncWorker, kind: string): Promise<void> {
  const worker = start();
  try {
    await worker.ready;
    await worker.waitForLine((l) => l.includes(`"batch":"${kind}"`), 60_000);
  } finally {
    await worker.kill();
  }
}

/** The count tables against count(*): exact at every batch boundary. */
async function expectCountsExact(app: TestApp, where: string): Promise<void> {
  const [row] = await queryRows<{
    total: number;
    counted: number;
    schemas: number;
    revoked: number;
    counted_revoked: number;
  }>(
    app.db,
    sql`select (select count(*)::int from location_proofs) as total,
               (select coalesce(sum(n), 0)::int from proof_counts) as counted,
               (select coalesce(sum(n), 0)::int from proof_schema_counts) as schemas,
               (select count(*)::int from location_proofs where revoked) as revoked,
               (select coalesce(sum(n), 0)::int from proof_counts where revoked) as counted_revoked`,
  );
  expect(row!.counted, `proof_counts ${where}`).toBe(row!.total);
  expect(row!.schemas, `proof_schema_counts ${where}`).toBe(row!.total);
  expect(row!.counted_revoked, `revoked counts ${where}`).toBe(row!.revoked);
}

beforeAll(async () => {
  if (PG) workers = await buildSyncWorkers();
}, 120_000);
afterAll(async () => {
  await workers?.dispose();
});

describe.skipIf(!PG)("a run killed in the batched work (needs DATABASE_URL)", () => {
  describe("a denied schema's delete", () => {
    let devnet: Devnet;
    let app: TestApp;
    beforeAll(async () => {
      ({ devnet, app } = await syncedDevnetWithCopies({ count: 2_000, uidPrefix: "e1" }));
    }, 120_000);
    endAfterAll(() => [app, devnet]);

    it("leaves the rows as the last committed batch left them, counts exact, and the next runs finish", {
      timeout: 240_000,
    }, async () => {
      const left = async () =>
        (
          await queryRows<{ n: number }>(
            app.db,
            sql`select count(*)::int as n from location_proofs where schema_uid = ${appendix}`,
          )
        )[0]!.n;
      const initial = await left();
      expect(initial).toBeGreaterThan(5 * BATCH);
      const start = (env: Record<string, string> = {}) =>
        startWorker(app, devnet, { SCHEMA_DENY: appendix, ...env });
      // The count-table row of the denied schema: the delete's statement trigger waits for it, rows deleted.
      const lock = `select 1 from proof_schema_counts where schema_uid = '${appendix}' for update`;
      const seen: number[] = [];
      for (let k = 0; k < 4; k++) {
        const before = await left();
        if (k % 2 === 0) {
          await killInsideBatch(app, start, lock);
          // The batch in flight is gone whole: as if that run had not started its delete.
          expect(await left(), `kill ${k + 1}, inside a batch`).toBe(before);
        } else {
          await killAfterBatch(start, "denied");
          // As if the run had finished its batch: one whole batch gone.
          expect(await left(), `kill ${k + 1}, after a batch`).toBe(Math.max(0, before - BATCH));
        }
        seen.push(await left());
        await expectCountsExact(app, `after kill ${k + 1}`);
      }
      // The dead worker's lease lapses, then the next runs finish the work.
      await new Promise((r) => setTimeout(r, LEASE_MS + 200));
      const service = syncService(app, {
        config: devnetSyncConfig(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0", SCHEMA_DENY: appendix }),
        options: OPTIONS,
      });
      for (let i = 0; i < 5 && (await left()) > 0; i++) await service.sync("manual");
      expect(await left()).toBe(0);
      await expectCountsExact(app, "at the end");
      console.log(
        `killed batches (denied schema): rows left after each kill ${seen.join(",")} of ${initial}`,
      );
    });
  });

  describe("a deep rewind", () => {
    let devnet: Devnet;
    let app: TestApp;
    beforeAll(async () => {
      devnet = await startTestDevnet();
      app = await createTestApp(oneDevnet(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0" }));
    }, 120_000);
    endAfterAll(() => [app, devnet]);

    it("leaves the cursor, the queue and the rows at a batch boundary; the next runs finish it", {
      timeout: 240_000,
    }, async () => {
      const proofData = (memo: string) =>
        encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "1.5, 2.5", memo });
      const { forkPoint } = await attestAcrossFork(devnet, proofData);
      const service = syncService(app, {
        config: devnetSyncConfig(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0" }),
        options: OPTIONS,
      });
      expect((await service.sync("manual")).chains[0]).toMatchObject({ status: "ok", revocations: 1 });
      await copyProof(app.db, { where: sql`memo = 'B'`, count: 1_000, uidPrefix: "d1" });
      const orphaned = 1_001;
      await rpc(devnet.rpcUrl, "anvil_reorg", [(await blockNumber(devnet.rpcUrl)) - forkPoint, []]);
      await attest(devnet.rpcUrl, devnet.eas, [{ data: proofData("C") }]);
      await mine(devnet.rpcUrl, 1);
      const state = async () =>
        (
          await queryRows<{
            cursor: number;
            above: number;
            revoked: number;
            queued: number | null;
            deleted: number | null;
          }>(
            app.db,
            sql`select (select cursor_block::int from sync_state where chain = 'devnet') as cursor,
                       (select count(*)::int from location_proofs where block_number > ${forkPoint}) as above,
                       (select count(*)::int from location_proofs where revoked) as revoked,
                       (select rows_total::int from sync_deletes where kind = 'rewind' and completed_at is null) as queued,
                       (select rows_deleted::int from sync_deletes where kind = 'rewind' and completed_at is null) as deleted`,
          )
        )[0]!;
      const start = (env: Record<string, string> = {}) => startWorker(app, devnet, env);
      const lapse = () => new Promise((r) => setTimeout(r, LEASE_MS + 200));
      const first = await state();
      expect(first).toMatchObject({ above: orphaned, revoked: 1, queued: null });
      expect(first.cursor).toBeGreaterThan(forkPoint);

      // 1. Inside the rewind's first transaction (its cursors moved, then the stored hashes above the fork deleted:
      //    one of them is locked): as if the run had not started.
      await killInsideBatch(
        app,
        start,
        `select 1 from sync_blocks where block_number > ${forkPoint} limit 1 for update`,
      );
      expect(await state(), "killed inside the rewind's first transaction").toEqual(first);
      await expectCountsExact(app, "after kill 1");
      await lapse();

      // 2. Inside its first row batch (every orphaned row locked): the rewind is queued, nothing deleted yet.
      await killInsideBatch(
        app,
        start,
        `select 1 from location_proofs where block_number > ${forkPoint} for update`,
      );
      const queued = await state();
      expect(queued).toMatchObject({ above: orphaned, revoked: 1, queued: orphaned, deleted: 0 });
      expect(queued.cursor).toBeLessThanOrEqual(forkPoint);
      await expectCountsExact(app, "after kill 2");
      await lapse();

      // 3. Right after a committed batch: one whole batch gone, the queue's count of it right.
      await killAfterBatch(start, "rewind");
      const one = await state();
      expect(one).toMatchObject({ above: orphaned - BATCH, revoked: 1, queued: orphaned, deleted: BATCH });
      expect(one.cursor).toBeLessThanOrEqual(forkPoint);
      await expectCountsExact(app, "after kill 3");
      await lapse();

      // 4. Inside the batch that deletes the last rows and undoes the orphaned revocation (the revoked proof, A,
      //    locked; the batches before it commit): that batch is gone whole, its rows and the revocation as before.
      await killInsideBatch(app, start, "select 1 from location_proofs where revoked for update");
      const last = orphaned % BATCH;
      expect(await state(), "killed inside the last batch").toMatchObject({
        above: last,
        revoked: 1,
        queued: orphaned,
        deleted: orphaned - last,
      });
      await expectCountsExact(app, "after kill 4");
      await lapse();

      // The next runs finish the rewind and index the new branch.
      for (let i = 0; i < 5; i++) if ((await service.sync("manual")).chains[0]!.status === "ok") break;
      const memos = await queryRows<{ memo: string; revoked: boolean }>(
        app.db,
        sql`select memo, revoked from location_proofs order by memo`,
      );
      expect(memos).toEqual([
        { memo: "A", revoked: false },
        { memo: "C", revoked: false },
      ]);
      await expectCountsExact(app, "at the end");
    });
  });

  describe("revocation reconciliation", () => {
    let devnet: Devnet;
    let app: TestApp;
    beforeAll(async () => {
      ({ devnet, app } = await syncedDevnetWithCopies({ count: 0, uidPrefix: "f1" }));
      // Proofs revoked on chain through EAS, indexed so: the gaps below are made of them.
      const data = encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "5.5, 6.5" });
      const uids = await attest(
        devnet.rpcUrl,
        devnet.eas,
        Array.from({ length: 8 }, () => ({ data })),
      );
      await revoke(devnet.rpcUrl, devnet.eas, uids);
      await mine(devnet.rpcUrl, 3);
      expect((await syncService(app).sync("manual")).chains[0]).toMatchObject({
        status: "ok",
        revocations: 8,
      });
      await copyProof(app.db, {
        where: sql`schema_uid <> ${appendix} and revoked = false`,
        count: 500,
        uidPrefix: "f2",
      });
    }, 120_000);
    endAfterAll(() => [app, devnet]);

    it("writes a page's revocations and its cursor together or not at all; the next calls finish the pass", {
      timeout: 240_000,
    }, async () => {
      // The index's gaps: proofs revoked on chain, marked not revoked here.
      const gaps = (
        await queryRows<{ uid: string }>(
          app.db,
          sql`update location_proofs set revoked = false, revocation_time = null, revocation_block_number = null
               where revoked returning uid`,
        )
      )
        .map((g) => g.uid)
        .sort();
      expect(gaps.length).toBeGreaterThan(8);
      const state = async () => {
        const [row] = await queryRows<{ cursor: string | null; checked: number; fixed: string[] }>(
          app.db,
          sql`select (select reconcile_cursor from sync_state where chain = 'devnet') as cursor,
                     (select reconcile_checked::int from sync_state where chain = 'devnet') as checked,
                     (select coalesce(array_agg(uid order by uid), '{}') from location_proofs where revoked) as fixed`,
        );
        return row!;
      };
      // At a page boundary: the gaps fixed are exactly those up to the cursor, the pages counted whole.
      const expectBoundary = (s: Awaited<ReturnType<typeof state>>, where: string) => {
        if (s.cursor === null) expect([0, gaps.length], where).toContain(s.fixed.length);
        else {
          expect(s.fixed, where).toEqual(gaps.filter((g) => g <= s.cursor!));
          expect(s.checked % PAGE, where).toBe(0);
        }
      };
      const start = (env: Record<string, string> = {}) =>
        startWorker(app, devnet, { SYNC_MODE: "reconcile", ...env });
      const lapse = () => new Promise((r) => setTimeout(r, LEASE_MS + 200));
      const seen: string[] = [];
      for (let k = 0; k < 6; k++) {
        const before = await state();
        if (k % 2 === 0) {
          // The next gap the pass has not fixed yet, locked: its page's update waits for it.
          const next = gaps.find((g) => !before.fixed.includes(g));
          if (!next) break;
          await killInsideBatch(app, start, `select 1 from location_proofs where uid = '${next}' for update`);
          const after = await state();
          expect(after.fixed, `kill ${k + 1}: the page in flight wrote nothing`).not.toContain(next);
          expectBoundary(after, `after kill ${k + 1}`);
        } else {
          await killAfterBatch(start, "reconcile");
          const after = await state();
          expectBoundary(after, `after kill ${k + 1}`);
          // One page more than before, counted whole.
          if (after.cursor !== null && before.cursor !== null)
            expect(after.checked).toBe(before.checked + PAGE);
        }
        const s = await state();
        seen.push(`${s.fixed.length}/${gaps.length}@${s.checked}`);
        await expectCountsExact(app, `after kill ${k + 1}`);
        await lapse();
      }
      const service = syncService(app, {
        config: devnetSyncConfig(devnet.rpcUrl, { CONFIRMATIONS_DEVNET: "0" }),
        options: OPTIONS,
      });
      for (let i = 0; i < 5; i++) if ((await service.reconcile(["devnet"])).chains[0]!.complete) break;
      expect((await state()).fixed).toEqual(gaps);
      await expectCountsExact(app, "at the end");
      console.log(`killed batches (reconciliation): gaps fixed@checked after each kill ${seen.join(", ")}`);
    });
  });
});
