/**
 * Indexing throughput of the sync engine from a local anvil: 10,000 location attestations of four schemas written
 * through EAS (the v0.1 schema 40%, and the devnet's Location Protocol schemas: the spec appendix's 20%, the Dart
 * order with an application's fields 30%, the SDK's with location as bytes 10%), plus 500 of a schema that is not
 * about locations, which the engine must leave out; then indexed end to end (schema discovery → one eth_getLogs per
 * range for every schema → Multicall3 reads → decode by name → database), twice: with no added latency and with 50 ms
 * added to every RPC request (a loopback proxy in front of anvil, like a remote provider).
 *
 *   npm run bench:sync                                 # embedded database (PGlite, in memory)
 *   BENCH_DATABASE_URL=postgres://… npm run bench:sync # PostgreSQL: creates its own database `lpqs_bench_sync`
 *                                                      # on that server and drops it afterwards (DATABASE_URL is
 *                                                      # never touched: the bench truncates the sync tables)
 *   BENCH_ATTESTATIONS=2000 npm run bench:sync
 *   BENCH_SYNC_PART=quiet npm run bench:sync           # only the quiet networks (bench/sync-quiet.ts)
 *   BENCH_SYNC_PART=scale npm run bench:sync           # index the attestations once, then only the scale part
 *   BENCH_SYNC_PART=scale npm run bench:sync -- --rows 100000
 *                                                      # the scale part's synthetic rows (default 500,000)
 *
 * Prints attestations/s and RPC requests per 1,000 attestations (goals: ≤ 15 requests per 1,000; ≥ 800/s at 50 ms),
 * and checks that every location attestation, and nothing else, was indexed. First, the quiet networks
 * (bench/sync-quiet.ts): RPC requests per run per quiet network, and one cron run over every network at +100 ms.
 * Last, the scale part (bench/sync-deletes.ts): reconciliation's proofs per second and per RPC request, and a denied
 * schema's rows deleted per run within the time budget, with the worst run's wall time against the budget.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import type { Hex } from "viem";
import { connect, type DbHandle, MAINTENANCE_BUDGETS, queryRows } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { openPglite } from "../db/pglite.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { attest } from "../lib/devnet/eas.js";
import { freePort, startDevnet } from "../lib/devnet/index.js";
import { encodeLocationProof } from "../lib/devnet/location-data.js";
import { startRpcProxy } from "../lib/devnet/rpc-proxy.js";
import {
  DEVNET_SCHEMA_UIDS,
  DEVNET_SCHEMAS,
  type DevnetSchema,
  encodeRecord,
  registerSchemas,
} from "../lib/devnet/schemas.js";
import { createSyncService } from "../lib/sync/service.js";
import { benchArgs } from "./common.js";
import { deletesAndReconciliation } from "./sync-deletes.js";
import { quietNetworks } from "./sync-quiet.js";

const N = Number(process.env.BENCH_ATTESTATIONS ?? 10_000);
/** the scale part's synthetic rows of one schema (bench/sync-deletes.ts) */
const { rows: ROWS } = benchArgs({
  numbers: { rows: Number(process.env.BENCH_SYNC_DELETE_ROWS ?? 500_000) },
});
/** BENCH_SYNC_PART=quiet | throughput runs one part only (default: both) */
const PART = process.env.BENCH_SYNC_PART ?? "all";

/** the database the bench creates and drops on BENCH_DATABASE_URL's server (BENCH_SYNC_DB: another name) */
const BENCH_DB = process.env.BENCH_SYNC_DB ?? "lpqs_bench_sync";
const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";

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
    if (PART === "all" || PART === "quiet") {
      await quietNetworks(handle.db, devnet);
      await handle.db.execute(
        sql`truncate location_proofs, sync_state, sync_blocks, sync_runs, chain_schemas`,
      );
      if (PART === "quiet") return;
    }
    let t = performance.now();
    await registerSchemas(devnet.rpcUrl, devnet.schemaRegistry, Object.values(DEVNET_SCHEMAS));
    const now = Math.floor(Date.now() / 1000);
    const point = (i: number) => [((i * 7.31) % 360) - 180, ((i * 3.17) % 170) - 85] as const;
    const geojson = (i: number) => JSON.stringify({ type: "Point", coordinates: point(i) });
    const pair = (i: number) => `${point(i)[0].toFixed(6)}, ${point(i)[1].toFixed(6)}`;
    const MIX: [DevnetSchema, number, (i: number) => Hex][] = [
      [
        "v01",
        0.4,
        (i) =>
          encodeLocationProof({
            eventTimestamp: BigInt(now - i),
            locationType: i % 10 === 0 ? "geojson-point" : "DecimalDegrees<string>",
            location: i % 10 === 0 ? geojson(i) : pair(i),
            recipeType: ["gps"],
            recipePayload: ["0x01"],
            memo: `bench proof ${i}`,
          }),
      ],
      [
        "appendix",
        0.2,
        (i) =>
          encodeRecord(DEVNET_SCHEMAS.appendix, {
            srs: CRS84,
            location_type: "geojson-point",
            location: geojson(i),
            lp_version: 1,
          }),
      ],
      [
        "dart",
        0.3,
        (i) =>
          encodeRecord(DEVNET_SCHEMAS.dart, {
            lp_version: "1.0.0",
            srs: CRS84,
            location_type: i % 2 ? "coordinate-decimal+lon-lat" : "decimalDegrees",
            location: pair(i),
            event_timestamp: BigInt(now - i),
            memo: `bench record ${i}`,
            accuracy_m: i % 50,
            reading: BigInt(i) * 10n ** 20n,
            verified: i % 3 === 0,
          }),
      ],
      [
        "sdk",
        0.1,
        (i) =>
          encodeRecord(DEVNET_SCHEMAS.sdk, {
            specVersion: 2,
            srs: "EPSG:4326",
            locationType: "coordinate-decimal+lon-lat",
            location: `0x${Buffer.from(pair(i)).toString("hex")}`,
          }),
      ],
    ];
    let i = 0;
    for (const [name, share, encode] of MIX) {
      const items = Array.from({ length: Math.round(N * share) }, () => ({ data: encode(i++) }));
      await attest(devnet.rpcUrl, devnet.eas, items, {
        chunk: 250,
        gasPerAttestation: 1_500_000n,
        schemaUid: DEVNET_SCHEMA_UIDS[name],
      });
    }
    const others = Array.from({ length: 500 }, (_, j) => ({
      data: encodeRecord(DEVNET_SCHEMAS.review, { location: `place ${j}`, comment: "fine", rating: 4n }),
    }));
    await attest(devnet.rpcUrl, devnet.eas, others, { chunk: 250, schemaUid: DEVNET_SCHEMA_UIDS.review });
    console.log(
      `seeded ${i} location attestations of four schemas (and ${others.length} of a schema about something else) through EAS in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    // The first pass warms up anvil's state cache, the JIT and the database; it is reported but not a result.
    const passes: (readonly [string, number])[] =
      PART === "scale"
        ? [["index once", 0]]
        : [
            ["warm-up", 0],
            ["result", 0],
            ["result", 50],
          ];
    for (const [label, delayMs] of passes) {
      await handle.db.execute(
        sql`truncate location_proofs, sync_state, sync_blocks, sync_runs, chain_schemas`,
      );
      const proxy = await startRpcProxy({ target: devnet.rpcUrl, delayMs });
      const config = loadConfig({
        CHAINS: "devnet",
        RPC_URL_DEVNET: proxy.url,
        CONFIRMATIONS_DEVNET: "0",
        LOG_LEVEL: "silent",
        SYNC_TIME_BUDGET_MS: "600000",
      });
      // The engine's log lines go through the process's configuration: silent too.
      setConfig(config);
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
      const stored = await queryRows<{ schema_uid: string; n: number }>(
        handle.db,
        sql`select schema_uid, count(*)::int as n from location_proofs group by 1`,
      );
      const total = stored.reduce((n, r) => n + r.n, 0);
      if (total !== i || indexed !== i || stored.some((r) => r.schema_uid === DEVNET_SCHEMA_UIDS.review))
        throw new Error(
          `indexed ${indexed}, stored ${JSON.stringify(stored)}; expected ${i} location attestations`,
        );
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
    if (PART === "all" || PART === "scale") await deletesAndReconciliation(handle.db, devnet, ROWS);
  } finally {
    await handle.close();
    await drop();
    await devnet.stop();
  }
}

await main();
