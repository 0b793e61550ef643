// p50 of a bbox list request (GET /api/v0/location-proofs?bbox=...) on 100,000 proofs, through the real router and
// handlers, on the embedded PGlite and on PostgreSQL (BENCH_DATABASE_URL, default the local server's `test` db;
// a database `lpqs_bench_v0` is created there and dropped afterwards). `npm run bench:v0 -- [rows] [requests]`
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import pg from "pg";
import { connect, type DbHandle, MAINTENANCE_BUDGETS, setDatabase } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { openPglite } from "../db/pglite.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { createRouter } from "../lib/local/router.js";
import { insertProofs, sampleProofs } from "../lib/local/sample-proofs.js";

const ROWS = Number(process.argv[2] ?? 100_000);
const REQUESTS = Number(process.argv[3] ?? 200);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const QUERIES = {
  "city bbox (Berlin)": "bbox=13.3,52.4,13.5,52.6",
  "continent bbox (Europe)": "bbox=-10,35,30,60",
  "antimeridian bbox (Fiji/Samoa)": "bbox=179,-20,-179,-10",
};

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;

async function measure(label: string, handle: DbHandle) {
  setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
  setDatabase(handle);
  const t0 = performance.now();
  await insertProofs(handle.db, sampleProofs({ count: ROWS, seed: 99 }));
  await handle.db.execute(sql`analyze location_proofs`);
  console.log(`${label}: loaded ${ROWS} proofs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const router = createRouter(ROOT);
  for (const [name, query] of Object.entries(QUERIES)) {
    const url = `http://localhost/api/v0/location-proofs?${query}`;
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < REQUESTS + 20; i++) {
      const started = performance.now();
      const res = await router.handle(new Request(url));
      const body = (await res.json()) as { pagination: { total: number } };
      if (res.status !== 200) throw new Error(`${res.status} for ${url}`);
      if (i >= 20) times.push(performance.now() - started); // the first 20 warm caches
      total = body.pagination.total;
    }
    console.log(
      `${label}: ${name.padEnd(32)} matches ${String(total).padStart(6)}  p50 ${percentile(times, 0.5).toFixed(2)} ms  p95 ${percentile(times, 0.95).toFixed(2)} ms  (${REQUESTS} requests, limit 100, with total)`,
    );
  }
}

const pglite = await openPglite();
await migrate(pglite);
await measure("PGlite", pglite);
await pglite.close();

const server = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const admin = new pg.Client({ connectionString: server });
try {
  await admin.connect();
} catch {
  console.log(`PostgreSQL: not reachable at ${server}, skipped`);
  process.exit(0);
}
await admin.query("drop database if exists lpqs_bench_v0 with (force)");
await admin.query("create database lpqs_bench_v0");
const url = new URL(server);
url.pathname = "/lpqs_bench_v0";
const handle = await connect(url.toString(), "pg", MAINTENANCE_BUDGETS);
await migrate(handle);
await measure("PostgreSQL", handle);
await handle.close();
await admin.query("drop database if exists lpqs_bench_v0 with (force)");
await admin.end();
