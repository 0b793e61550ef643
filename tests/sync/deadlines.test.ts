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
});
