/**
 * Indexing throughput of the sync engine from a local anvil: 10,000 location-proof attestations written through EAS,
 * then indexed end to end (eth_getLogs → Multicall3 reads → decode → database), twice: with no added latency and
 * with 50 ms added to every RPC request (a loopback proxy in front of anvil, like a remote provider).
 *
 *   npm run bench:sync                                 # embedded database (PGlite, in memory)
 *   BENCH_DATABASE_URL=postgres://… npm run bench:sync # PostgreSQL: creates its own database `lpqs_bench_sync`
 *                                                      # on that server and drops it afterwards (DATABASE_URL is
 *                                                      # never touched: the bench truncates the sync tables)
 *   BENCH_ATTESTATIONS=2000 npm run bench:sync
 *
 * Prints attestations/s and RPC requests per 1,000 attestations (goals: ≤ 15 requests per 1,000; ≥ 800/s at 50 ms).
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import { connect, type DbHandle, MAINTENANCE_BUDGETS } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { openPglite } from "../db/pglite.js";
import { loadConfig } from "../lib/config.js";
import { attest } from "../lib/devnet/eas.js";
import { freePort, startDevnet } from "../lib/devnet/index.js";
import { encodeLocationProof } from "../lib/devnet/location-data.js";
import { startRpcProxy } from "../lib/devnet/rpc-proxy.js";
import { createSyncService } from "../lib/sync/service.js";

const N = Number(process.env.BENCH_ATTESTATIONS ?? 10_000);

const BENCH_DB = "lpqs_bench_sync";

/** PGlite, or a database of the bench's own on BENCH_DATABASE_URL's server; `drop` removes it again. */
async function openDb(): Promise<{ handle: DbHandle; drop: () => Promise<void> }> {
  const server = process.env.BENCH_DATABASE_URL;
  if (!server) {
    const handle = await openPglite();
    await migrate(handle);
    return { handle, drop: async () => {} };
  }
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`drop database if exists ${BENCH_DB} with (force)`);
  await admin.query(`create database ${BENCH_DB}`);
  const url = new URL(server);
  url.pathname = `/${BENCH_DB}`;
  const handle = await connect(url.toString(), "pg", MAINTENANCE_BUDGETS);
  await migrate(handle);
  return {
    handle,
    drop: async () => {
      await admin.query(`drop database if exists ${BENCH_DB} with (force)`);
      await admin.end();
    },
  };
}

async function main() {
  const devnet = await startDevnet({ port: await freePort(), blockTimeSeconds: 0 });
  const { handle, drop } = await openDb();
  try {
    let t = performance.now();
    const now = Math.floor(Date.now() / 1000);
    const items = Array.from({ length: N }, (_, i) => {
      const lon = ((i * 7.31) % 360) - 180;
      const lat = ((i * 3.17) % 170) - 85;
      return {
        data: encodeLocationProof({
          eventTimestamp: BigInt(now - i),
          locationType: i % 10 === 0 ? "geojson-point" : "DecimalDegrees<string>",
          location:
            i % 10 === 0
              ? JSON.stringify({ type: "Point", coordinates: [lon, lat] })
              : `${lon.toFixed(6)}, ${lat.toFixed(6)}`,
          recipeType: ["gps"],
          recipePayload: ["0x01"],
          memo: `bench proof ${i}`,
        }),
      };
    });
    await attest(devnet.rpcUrl, devnet.eas, items, { chunk: 250, gasPerAttestation: 1_500_000n });
    console.log(`seeded ${N} attestations through EAS in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    // The first pass warms up anvil's state cache, the JIT and the database; it is reported but not a result.
    for (const [label, delayMs] of [
      ["warm-up", 0],
      ["result", 0],
      ["result", 50],
    ] as const) {
      await handle.db.execute(sql`truncate location_proofs, sync_state, sync_blocks, sync_runs`);
      const proxy = await startRpcProxy({ target: devnet.rpcUrl, delayMs });
      const config = loadConfig({
        CHAINS: "devnet",
        RPC_URL_DEVNET: proxy.url,
        CONFIRMATIONS_DEVNET: "0",
        LOG_LEVEL: "silent",
        SYNC_TIME_BUDGET_MS: "600000",
      });
      const service = createSyncService({ db: handle.db, config });
      t = performance.now();
      let indexed = 0;
      for (;;) {
        const report = await service.sync("manual");
        const chain = report.chains[0]!;
        if (chain.status === "error") throw new Error(chain.error ?? "sync failed");
        indexed += chain.attestations;
        if (chain.status === "ok") break;
      }
      const seconds = (performance.now() - t) / 1000;
      await proxy.close();
      console.log(
        [
          `${label}: latency +${delayMs} ms per RPC request:`,
          `${indexed} attestations in ${seconds.toFixed(2)} s = ${Math.round(indexed / seconds)} attestations/s,`,
          `${proxy.requests} RPC requests = ${((proxy.requests / indexed) * 1000).toFixed(1)} per 1,000`,
          `(${Object.entries(proxy.calls)
            .map(([m, c]) => `${m} ${c}`)
            .join(", ")})`,
        ].join(" "),
      );
    }
  } finally {
    await handle.close();
    await drop();
    await devnet.stop();
  }
}

await main();
