/**
 * The sync engine at scale (issue #33), part of bench:sync: a chain whose stored proofs are the devnet's real ones
 * plus `rows` synthetic rows of one schema (`--rows`, default 500,000; copies of a real row under new uids, so EAS
 * does not know them, each with a place of its own, so that the deletes pay the tile and cell count triggers as real
 * rows do), with the devnet behind it, through a proxy that counts requests. Then
 * - revocation reconciliation, call after call, until its pass is complete: proofs checked per second and per RPC
 *   request, the calls a pass took, and the slowest call against the time budget;
 * - that schema denied: runs (the engine's defaults: batches of 10,000 rows, the 20 s time budget) until its rows are
 *   gone, one new attestation of another schema before every run: rows deleted per run, runs to converge, every
 *   run's wall time against the budget, and the new attestations indexed meanwhile.
 */
import { sql } from "drizzle-orm";
import { type Db, queryRows } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { rpcCall } from "../lib/devnet/anvil.js";
import { attest } from "../lib/devnet/eas.js";
import type { Devnet } from "../lib/devnet/index.js";
import { encodeLocationProof } from "../lib/devnet/location-data.js";
import { copyProofsBulk } from "../lib/devnet/proof-copies.js";
import { startRpcProxy } from "../lib/devnet/rpc-proxy.js";
import { DEVNET_SCHEMA_UIDS } from "../lib/devnet/schemas.js";
import { createSyncService } from "../lib/sync/service.js";

const { appendix } = DEVNET_SCHEMA_UIDS;

export async function deletesAndReconciliation(db: Db, devnet: Devnet, rows: number): Promise<void> {
  let t = performance.now();
  // The secondary indexes built after the copy, not row by row (a load, not what is measured).
  await copyProofsBulk(db, [
    { where: sql`schema_uid = ${appendix}`, count: rows, uidPrefix: "be", place: "spread" },
  ]);
  await db.execute(sql`analyze location_proofs`);
  const [stored] = await queryRows<{ all: number; schema: number }>(
    db,
    sql`select count(*)::int as all, count(*) filter (where schema_uid = ${appendix})::int as schema
          from location_proofs`,
  );
  console.log(
    `scale: ${stored!.all} stored proofs (${rows} synthetic of one schema, ${stored!.schema} of it in all), loaded in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const proxy = await startRpcProxy({ target: devnet.rpcUrl, delayMs: 0 });
  const env = {
    CHAINS: "devnet",
    RPC_URL_DEVNET: proxy.url,
    CONFIRMATIONS_DEVNET: "0",
    LOG_LEVEL: "silent",
  };
  try {
    const config = loadConfig(env);
    setConfig(config);
    const budgetMs = config.syncTimeBudgetMs;
    const service = createSyncService({ db, config });

    // Reconciliation: a whole pass, call after call.
    let calls = 0;
    let checked = 0;
    let slowest = 0;
    const requestsBefore = proxy.requests;
    t = performance.now();
    for (;;) {
      const c = performance.now();
      const r = await service.reconcile(["devnet"]);
      slowest = Math.max(slowest, performance.now() - c);
      calls++;
      const chain = r.chains[0]!;
      if (chain.status === "error" || chain.status === "skipped") throw new Error(JSON.stringify(chain));
      checked += chain.checked;
      if (chain.complete) break;
    }
    const seconds = (performance.now() - t) / 1000;
    const requests = proxy.requests - requestsBefore;
    console.log(
      [
        `reconciliation: ${checked} proofs checked in ${calls} calls, ${seconds.toFixed(1)} s =`,
        `${Math.round(checked / seconds)} proofs/s, ${requests} RPC requests = ${(checked / requests).toFixed(0)} proofs per request;`,
        `slowest call ${(slowest / 1000).toFixed(1)} s against the ${budgetMs / 1000} s time budget`,
      ].join(" "),
    );

    // The schema denied: runs until its rows are gone, one new attestation of another schema before each.
    const denied = createSyncService({ db, config: loadConfig({ ...env, SCHEMA_DENY: appendix }) });
    const data = encodeLocationProof({ locationType: "DecimalDegrees<string>", location: "9.5, 10.5" });
    const runs: { ms: number; removed: number; attestations: number; status: string }[] = [];
    t = performance.now();
    for (let i = 0; i < 1_000; i++) {
      await attest(devnet.rpcUrl, devnet.eas, [{ data }]);
      await rpcCall(devnet.rpcUrl, "anvil_mine", ["0x1"]);
      const c = performance.now();
      const chain = (await denied.sync("manual")).chains[0]!;
      runs.push({
        ms: performance.now() - c,
        removed: chain.schemas.rows_removed,
        attestations: chain.attestations,
        status: chain.status,
      });
      if (chain.status === "error") throw new Error(chain.error ?? "sync failed");
      if (chain.status === "ok") break;
    }
    const removed = runs.reduce((n, r) => n + r.removed, 0);
    const full = runs.slice(0, -1); // every run but the last deleted as much as its budget allowed
    const worst = Math.max(...runs.map((r) => r.ms));
    const [left] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from location_proofs where schema_uid = ${appendix}`,
    );
    console.log(
      [
        `denied schema: ${removed} rows deleted in ${runs.length} runs (${left!.n} left),`,
        full.length
          ? `${Math.round(full.reduce((n, r) => n + r.removed, 0) / full.length)} rows per run (fewest ${Math.min(...full.map((r) => r.removed))})`
          : "all in one run",
        `within the ${budgetMs / 1000} s budget = ${Math.round(removed / ((performance.now() - t) / 1000))} rows/s;`,
        `worst run ${(worst / 1000).toFixed(1)} s against the ${budgetMs / 1000} s budget (${worst <= budgetMs ? "within" : "OVER"});`,
        `${runs.reduce((n, r) => n + r.attestations, 0)} new attestations of other schemas indexed meanwhile (one before each run)`,
      ].join(" "),
    );
  } finally {
    await proxy.close();
  }
}
