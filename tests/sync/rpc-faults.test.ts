import { sql } from "drizzle-orm";
import type { Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { createChainClient } from "../../lib/chains/client.js";
import type { Config } from "../../lib/config.js";
import { attest, DEVNET_ACCOUNTS, revoke } from "../../lib/devnet/eas.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { seedLocationProtocol } from "../../lib/devnet/protocol-seed.js";
import { seedDevnet } from "../../lib/devnet/seed.js";
import { AUTH, blockNumber, mine, startTestDevnet } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { chainTruth, dbState, expectTruthUpToCursor } from "../helpers/chain-truth.js";
import { endAfterAll } from "../helpers/fixtures.js";
import { type FaultProxy, startFaultProxy } from "../helpers/rpc-fault-proxy.js";
import { devnetSyncConfig, syncService } from "../helpers/sync-service.js";

/**
 * The sync engine under faults, against anvil with the real EAS contracts:
 * - 30% of RPC responses faulty (JSON-RPC errors, 5xx, timeouts, truncated bodies, resets): repeated cron runs
 *   converge to exactly the chain's truth, and after every run the database equals the truth up to the cursor;
 * - database errors in the middle of the commit transaction leave the cursor and the rows untouched;
 * - the status endpoint reports a failing chain's error without hiding the healthy one.
 * Killed runs are in tests/sync/killed-worker.test.ts (they need a database shared between processes).
 *
 * No mocks: the RPC faults come from a real HTTP proxy in front of anvil, the database faults from a real trigger
 * that raises inside the engine's own transaction.
 */
let devnet: Devnet;
// A fixed seed keeps CI deterministic; FAULT_SEED explores others (a failure prints its seed to replay).
const seed = Number(process.env.FAULT_SEED ?? 20261122);

/** uids written by the suite's own account (EAS lets only the attester revoke), not yet revoked. */
const revocable: Hex[] = [];

/**
 * Writes a chain worth syncing: the varied seed set, the Location Protocol records of the devnet's other schemas (so
 * the faults also hit schema discovery and the reads of several schemas), then 180 more over 12 blocks, then 3
 * revocation blocks.
 */
async function writeChain(d: Devnet): Promise<void> {
  await seedDevnet(d.rpcUrl, d.eas);
  await seedLocationProtocol(d.rpcUrl, d);
  const uids: Hex[] = [];
  for (let block = 0; block < 12; block++) {
    const items = Array.from({ length: 15 }, (_, i) => ({
      data: encodeLocationProof({
        eventTimestamp: BigInt(1_700_000_000 + block * 60 + i),
        locationType: "DecimalDegrees<string>",
        location: `${(block * 15 + i - 90) % 180}.25, ${(i * 5) % 90}.5`,
        memo: `fault-suite #${block * 15 + i}`,
      }),
      recipient: DEVNET_ACCOUNTS[2],
    }));
    uids.push(...(await attest(d.rpcUrl, d.eas, items)));
  }
  for (let r = 0; r < 3; r++)
    await revoke(
      d.rpcUrl,
      d.eas,
      uids.filter((_, i) => i % 7 === r),
    );
  await mine(d.rpcUrl, 3);
}

const devnetConfig = (rpcUrl: string): Config => devnetSyncConfig(rpcUrl, { RATE_LIMIT_PER_MINUTE: "0" });

/** Small ranges and commits, so a run is many steps and a fault can land between any two of them. */
const SMALL_STEPS = {
  initialRange: 3,
  maxRange: 6,
  commitSize: 10,
  readBatchSize: 8,
  readConcurrency: 2,
  leaseMs: 2_000,
};

beforeAll(async () => {
  devnet = await startTestDevnet();
  await writeChain(devnet);
}, 120_000);
endAfterAll(() => [devnet]);

describe("30% faulty RPC responses", () => {
  let app: TestApp;
  let proxy: FaultProxy;
  beforeAll(async () => {
    app = await createTestApp({});
    proxy = await startFaultProxy({ target: devnet.rpcUrl, rate: 0.3, seed, hangMs: 2_000 });
  });
  endAfterAll(() => [proxy, app]);

  it("repeated cron runs converge to exactly the chain's truth", { timeout: 240_000 }, async () => {
    let truth = await chainTruth(devnet.rpcUrl, devnet.eas);
    expect(truth.size).toBeGreaterThan(190);
    expect([...truth.values()].filter((t) => t.revoked !== null).length).toBeGreaterThan(20);
    let confirmedHead = (await blockNumber(devnet.rpcUrl)) - 2;

    const service = syncService(app, {
      config: devnetConfig(proxy.url),
      // The engine's own client, pointed at the proxy, with a short per-request timeout so "timeout" faults cost
      // less than a second (production uses 15 s).
      clientFor: (chain) => createChainClient(chain, { timeoutMs: 400 }),
      options: SMALL_STEPS,
    });
    const statuses: Record<string, number> = {};
    let runs = 0;
    let converged = false;
    let previousCursor = -1;
    while (runs < 80 && !converged) {
      runs++;
      const report = await service.sync("cron", ["devnet"]);
      const chain = report.chains[0]!;
      statuses[chain.status] = (statuses[chain.status] ?? 0) + 1;
      const state = await dbState(app.db);
      expectTruthUpToCursor(state, truth, `after run ${runs} (${chain.status}: ${chain.error ?? ""})`);
      // The chain keeps moving during the first runs: new attestations, and revocations of indexed ones.
      if (runs <= 6) {
        const written = await attest(devnet.rpcUrl, devnet.eas, [
          {
            data: encodeLocationProof({
              locationType: "DecimalDegrees<string>",
              location: `${runs}, ${runs}`,
            }),
          },
          { data: encodeLocationProof({ locationType: "DecimalDegrees<string>", location: `-${runs}, 1` }) },
        ]);
        // One brand-new attestation and two that are probably indexed already get revoked.
        await revoke(devnet.rpcUrl, devnet.eas, [written[0]!, ...revocable.splice(0, 2)]);
        revocable.push(written[1]!);
        await mine(devnet.rpcUrl, 3);
        truth = await chainTruth(devnet.rpcUrl, devnet.eas);
        confirmedHead = (await blockNumber(devnet.rpcUrl)) - 2;
      }
      // No reorg here, so the cursor never moves back.
      expect(state.cursor ?? -1).toBeGreaterThanOrEqual(previousCursor);
      previousCursor = state.cursor ?? -1;
      converged = chain.status === "ok" && state.cursor === confirmedHead;
    }
    expect(converged, `converged within ${runs} runs`).toBe(true);
    const final = await dbState(app.db);
    expect(final.rows.size).toBe(truth.size);
    expectTruthUpToCursor(final, truth, "final");
    const revokedCount = [...truth.values()].filter((t) => t.revoked !== null).length;
    // The faults really happened and really hurt.
    expect(proxy.injected()).toBeGreaterThan(10);
    expect(proxy.injected() / proxy.requests).toBeGreaterThan(0.15);
    console.log(
      `faults (30% RPC): ${proxy.injected()} faults injected in ${proxy.requests} RPC requests ` +
        `(${JSON.stringify(proxy.faults)}); ${runs} cron runs (${JSON.stringify(statuses)}); ` +
        `converged to ${truth.size} attestations, ${revokedCount} revoked; seed ${seed}`,
    );
  });
});

describe("database errors mid-transaction", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({});
  });
  endAfterAll(() => [app]);

  const checksum = async () =>
    (
      await queryRows<{ h: string }>(
        app.db,
        sql`select md5(coalesce(string_agg(t::text, '|' order by t.uid), '')) as h from location_proofs t`,
      )
    )[0]!.h;

  it("leave the cursor and the rows untouched; the engine converges once the database heals", {
    timeout: 180_000,
  }, async () => {
    const truth = await chainTruth(devnet.rpcUrl, devnet.eas);
    const confirmedHead = (await blockNumber(devnet.rpcUrl)) - 2;
    const service = syncService(app, { config: devnetConfig(devnet.rpcUrl), options: SMALL_STEPS });
    // A real database error raised inside the engine's commit transaction, after its cursor UPDATE and its row
    // INSERTs: the block-hash INSERT fails. `fault_rate` is read per statement, so the test can dial it.
    await app.db.execute(sql`create table lpqs_fault_rate (p float8 not null)`);
    await app.db.execute(sql`insert into lpqs_fault_rate values (1)`);
    await app.db.execute(
      sql.raw(`
      create function lpqs_inject_fault() returns trigger language plpgsql as $$
      begin
        if random() < (select p from lpqs_fault_rate) then
          raise exception 'injected database fault';
        end if;
        return null;
      end $$`),
    );
    await app.db.execute(
      sql.raw(
        "create trigger lpqs_fault before insert on sync_blocks for each statement execute function lpqs_inject_fault()",
      ),
    );

    // Every commit fails: the run errors, nothing at all is written, the cursor stays unset.
    const before = await checksum();
    let report = await service.sync("cron", ["devnet"]);
    expect(report.chains[0]).toMatchObject({ status: "error" });
    // The database's own message is reported, never the SQL of the failed query.
    expect(report.chains[0]!.error).toMatch(/injected database fault/);
    expect(report.chains[0]!.error).not.toMatch(/Failed query|insert into/i);
    expect((await dbState(app.db)).cursor).toBeNull();
    expect(await checksum()).toBe(before);

    // Half the commits fail: each run moves the cursor only over what it committed, and never past a failure.
    await app.db.execute(sql`update lpqs_fault_rate set p = 0.5`);
    let dbFaultRuns = 1;
    let progressed = 0;
    // Up to 30 runs: a run makes progress only when its first commits draw no fault, and on a loaded machine a run
    // can also lose its short lease; a dozen runs without progress happened there. The loop ends once converged.
    for (let i = 0; i < 30; i++) {
      const cursorBefore = (await dbState(app.db)).cursor;
      const sumBefore = await checksum();
      report = await service.sync("cron", ["devnet"]);
      const state = await dbState(app.db);
      expectTruthUpToCursor(state, truth, `run with 50% database faults (${report.chains[0]!.status})`);
      if (report.chains[0]!.status === "error") {
        dbFaultRuns++;
        // What a failed run committed before its failure stays; the failed transaction left no trace: the rows
        // match the cursor exactly (checked above), and with no progress at all nothing changed.
        if (state.cursor === cursorBefore) expect(await checksum()).toBe(sumBefore);
      }
      if ((state.cursor ?? -1) > (cursorBefore ?? -1)) progressed++;
      if (state.cursor === confirmedHead && report.chains[0]!.status === "ok") break;
    }
    expect(dbFaultRuns).toBeGreaterThan(1);
    expect(progressed).toBeGreaterThan(0);

    // The status names the failure of the last failed run.
    await app.db.execute(sql`update lpqs_fault_rate set p = 1`);
    await app.db.execute(
      sql`update sync_state set cursor_block = cursor_block - 1 where cursor_block is not null`,
    );
    report = await service.sync("cron", ["devnet"]);
    const status = await service.status();
    const devnetStatus = status.chains.find((c) => c.chain === "devnet")!;
    expect(devnetStatus.last_run).toMatchObject({ status: "error" });
    expect(devnetStatus.last_run!.error).toMatch(/injected database fault/);
    expect(devnetStatus.last_run!.error).not.toMatch(/Failed query|insert into/i);

    // Healed: the next runs converge to exactly the chain.
    await app.db.execute(sql.raw("drop trigger lpqs_fault on sync_blocks"));
    for (let i = 0; i < 5; i++) {
      report = await service.sync("cron", ["devnet"]);
      if (report.chains[0]!.status === "ok" && (await dbState(app.db)).cursor === confirmedHead) break;
    }
    const final = await dbState(app.db);
    expect(final.cursor).toBe(confirmedHead);
    expect(final.rows.size).toBe([...truth.values()].filter((t) => t.attested <= confirmedHead).length);
    expectTruthUpToCursor(final, truth, "healed");
    console.log(
      `faults (database): ${dbFaultRuns} runs failed by an injected database error, then converged`,
    );
  });
});

describe("status under failure", () => {
  let app: TestApp;
  let deadPort: number;
  beforeAll(async () => {
    const { freePort } = await import("../../lib/devnet/index.js");
    deadPort = await freePort();
    app = await createTestApp({
      CRON_SECRET: "test-secret",
      CHAINS: "devnet,sepolia",
      RPC_URL_DEVNET: devnet.rpcUrl,
      // Nothing listens here: every call to this chain fails at once.
      RPC_URL_SEPOLIA: `http://127.0.0.1:${deadPort}`,
    });
  });
  endAfterAll(() => [app]);

  it("shows the failing chain's error without hiding the healthy one", { timeout: 120_000 }, async () => {
    const sync = await app.get("/api/sync", { method: "POST", headers: AUTH });
    expect(sync.status).toBe(207);
    expect(sync.body.status).toBe("partial_failure");
    expect(sync.body.failures.map((f: { chain: string }) => f.chain)).toEqual(["sepolia"]);
    const res = await app.get("/api/sync/status", { headers: AUTH });
    expect(res.status).toBe(200);
    const by = Object.fromEntries(res.body.chains.map((c: { chain: string }) => [c.chain, c]));
    expect(by.devnet).toMatchObject({ enabled: true, last_run: { status: "ok", error: null } });
    expect(by.devnet.cursor_block).toBe((await blockNumber(devnet.rpcUrl)) - 2);
    expect(by.sepolia).toMatchObject({ enabled: true, last_run: { status: "error" } });
    expect(typeof by.sepolia.last_run.error).toBe("string");
    expect(by.sepolia.last_run.error.length).toBeGreaterThan(0);
    // The public chains that are not selected are listed, not hidden either.
    expect(by.base).toMatchObject({ enabled: false });
    // And the health endpoint is about this service: a chain's outage is not a database outage.
    expect((await app.request("/health")).status).toBe(200);
  });
});
