import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { attest } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { mine, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { type FaultProxy, startFaultProxy } from "../helpers/rpc-fault-proxy.js";
import { syncService } from "../helpers/sync-service.js";

/**
 * Deadlines inside each step (issue #33): a run whose RPC requests stop answering ends at its deadline rather than
 * waiting for the client's own timeout and retries, writes nothing half, and the next run continues from its cursor.
 * The fault is injected: the proxy (tests/helpers/rpc-fault-proxy.ts, kind "timeout") holds every request without
 * answering, as a provider that hangs does; anvil behind it is real.
 */
const DEADLINE_MS = 4_000;

let devnet: Devnet;
let proxy: FaultProxy;
let app: TestApp;

const proof = (memo: string) =>
  encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "5.5, 6.5", memo });

const state = async () =>
  (
    await queryRows<{
      cursor: number;
      schema_cursor: number;
      owner: string | null;
      rows: number;
      hashes: number;
    }>(
      app.db,
      sql`select cursor_block::int as cursor, schema_cursor_block::int as schema_cursor, lease_owner as owner,
                 (select count(*)::int from location_proofs) as rows,
                 (select count(*)::int from sync_blocks) as hashes
            from sync_state`,
    )
  )[0]!;

beforeAll(async () => {
  devnet = await startTestDevnet();
  proxy = await startFaultProxy({ target: devnet.rpcUrl, rate: 0, kinds: ["timeout"], hangMs: 30_000 });
  app = await createTestApp({ CHAINS: "devnet", RPC_URL_DEVNET: proxy.url, CONFIRMATIONS_DEVNET: "1" });
  await attest(devnet.rpcUrl, devnet.eas, [{ data: proof("before") }]);
  await mine(devnet.rpcUrl, 2);
}, 120_000);
endAfterAll(() => [app, proxy, devnet]);

describe("a run's deadline", () => {
  it("a provider that stops answering: the run ends within its deadline, nothing half-written; the next continues", async () => {
    const service = syncService(app, { options: { timeBudgetMs: 2_000, deadlineMs: DEADLINE_MS } });
    // Caught up first without the short deadline (a loaded machine may need longer than it for a first run).
    const patient = syncService(app);
    for (let i = 0; i < 3; i++) if ((await patient.sync("manual")).chains[0]!.status === "ok") break;
    const before = await state();
    expect(before.rows).toBe(1);

    await attest(devnet.rpcUrl, devnet.eas, [{ data: proof("during") }]);
    await mine(devnet.rpcUrl, 2);
    proxy.setRate(1); // every request from now on hangs
    const t = performance.now();
    const run = (await service.sync("manual")).chains[0]!;
    console.log(
      "deadline run:",
      JSON.stringify({ status: run.status, reason: run.reason, error: run.error }),
    );
    const took = performance.now() - t;
    expect(proxy.faults.timeout).toBeGreaterThan(0);
    // Without deadlines, the client waits for its own timeout (15 s) and retries.
    expect(took).toBeLessThan(DEADLINE_MS + 2_000);
    expect(run).toMatchObject({ status: "partial", reason: "deadline" });
    expect(run.error).toMatch(/TimeoutError|abort|deadline/i);
    // Nothing written, the lease released: the run ended, it was not killed.
    expect(await state()).toEqual({ ...before, owner: null });

    proxy.setRate(0);
    const next = (await service.sync("manual")).chains[0]!;
    expect(next.status).toBe("ok");
    expect(next.attestations).toBe(1);
    expect((await state()).rows).toBe(2);
  });

  it("reconciliation: a provider that stops answering ends the call within its deadline, nothing written; the next continues", async () => {
    const reconcile = () =>
      syncService(app, {
        options: { timeBudgetMs: 2_000, deadlineMs: DEADLINE_MS, reconcilePageSize: 1 },
      }).reconcile(["devnet"]);
    const progress = async () =>
      (
        await queryRows<{ cursor: string | null; checked: number; owner: string | null }>(
          app.db,
          sql`select reconcile_cursor as cursor, reconcile_checked::int as checked, lease_owner as owner
                from sync_state where chain = 'devnet'`,
        )
      )[0]!;
    const before = await progress();
    proxy.setRate(1); // every request from now on hangs
    const t = performance.now();
    const call = (await reconcile()).chains[0]!;
    const took = performance.now() - t;
    expect(proxy.faults.timeout).toBeGreaterThan(0);
    // Without a deadline the call waits for the client's own timeout (15 s) and its retries, then fails.
    expect(took).toBeLessThan(DEADLINE_MS + 2_000);
    expect(call).toMatchObject({ status: "partial", reason: "deadline", checked: 0, changed: 0 });
    // Nothing written, the lease released: the call ended, it was not killed.
    expect(await progress()).toEqual({ ...before, owner: null });

    proxy.setRate(0);
    const next = (await reconcile()).chains[0]!;
    expect(next.status === "ok" || next.status === "partial").toBe(true);
    expect(next.checked).toBeGreaterThan(0);
  });
});
