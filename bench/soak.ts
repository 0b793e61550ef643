/**
 * A soak of the service as deployed: `npm run soak [-- options]`.
 *
 * For --minutes (10), --connections (32) clients read without pause — a fixed mix of native and OGC requests (pages,
 * filters, single proofs, stats, /health) — from the built functions (`npm run build`'s output served on Node 24 as
 * Vercel invokes them, scripts/vercel-output/server.ts, as bench:scale serves them) over PostgreSQL, while:
 * - a devnet (anvil with the real EAS contracts, lib/devnet) mines a block a second and this process writes
 *   location proofs on chain through EAS every --write-every seconds (5), --batch (3) at a time;
 * - the cron runs as Vercel runs it: GET /api/cron/sync with the bearer CRON_SECRET at every minute (vercel.json's
 *   schedule), indexing what was written, on an instance of its own (a second server over the same output: on
 *   Vercel a function's instances serve that function only).
 * The database is `lpqs_bench_soak` on BENCH_DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres),
 * loaded with --rows (100,000) synthetic proofs (lib/local/synthetic-proofs.ts) and dropped afterwards, unless
 * --keep (the next run then reuses it: the soak takes out what it added). Every request of the mix runs --warm-up (20)
 * times before the clock starts, then every connection reads the mix for --warm-up-seconds (60), as a deployed
 * function under steady traffic is warm, its heap grown to what the load needs.
 *
 * Prints, per minute: requests, errors (any answer but 200, a network error, no answer within 10 s: goal 0), p50
 * and p99 latency (goal p99 <= 3x p50), the reads' server's resident memory at the minute's end and its CPU, the
 * cron instance's memory, and what the cron did; then whether the reads' server's memory stayed flat (goal: at most
 * 10% above the end of the first minute), and whether every proof written on chain was served by the single-proof
 * endpoint after the syncs (and how long after it was written). Exits 1 when a goal is missed.
 */

import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { Cron } from "croner";
import type { Hex } from "viem";
import { attest } from "../lib/devnet/eas.js";
import { freePort, startDevnet } from "../lib/devnet/index.js";
import { encodeLocationProof } from "../lib/devnet/location-data.js";
import { syntheticAddress } from "../lib/local/synthetic-proofs.js";
import { serveOutput } from "../scripts/vercel-output/emulate.js";
import {
  admin,
  benchArgs,
  benchDatabase,
  benchDatabaseUrl,
  DAY,
  END,
  iso,
  postgresVersion,
  ROOT,
  requireNode24,
  serveBuilt,
  servedEnv,
} from "./common.js";
import { statOf } from "./cores.js";
import { f1, lpad, pad, percentile } from "./figures.js";
import { ITEMS, SHAPES, V0 } from "./statements.js";

const ARGS = benchArgs({
  numbers: {
    minutes: 10,
    connections: 32,
    rows: 100_000,
    "write-every": 5,
    batch: 3,
    "warm-up": 20,
    "warm-up-seconds": 60,
  },
  flags: ["keep"],
});
// Without Node 24 the run stops here, not after loading the data.
const NODE24 = requireNode24();
const SOAK_DB = "lpqs_bench_soak";
const SECRET = "soak-cron-secret";
const REQUEST_TIMEOUT_MS = 10_000;
const CLK_TCK = 100;

type Minute = {
  latencies: number[];
  errors: number;
  rssMb?: number;
  /** The cron instance's resident memory at the minute's end. */
  cronRssMb?: number;
  cpuPercent?: number;
  crons: string[];
  written: number;
};
type Written = { uid: Hex; at: number; servedAt?: number };

const CITY = "bbox=13.3,52.45,13.5,52.57";
const MONTH = `fromTimestamp=${iso(END.getTime() - 60 * DAY)}&toTimestamp=${iso(END.getTime() - 30 * DAY)}`;
const OGC_MONTH = `datetime=${iso(END.getTime() - 60 * DAY)}/${iso(END.getTime() - 30 * DAY)}`;

/** The mix every client cycles through (from a different start): `uid` is filled in per request. */
function mix(): { label: string; path(uid: string): string }[] {
  const fixed = [
    V0,
    `${V0}?chain=base`,
    `${V0}?prover=${syntheticAddress("p", 1)}`,
    `${V0}?${MONTH}`,
    `${V0}?${CITY}`,
    `${V0}?chain=devnet`,
    `${V0}/stats`,
    ITEMS,
    `${ITEMS}?${CITY}`,
    `${ITEMS}?${CITY}&datetime=${iso(END.getTime() - 90 * DAY)}/..`,
    `${ITEMS}?chain=base`,
    `${ITEMS}?${OGC_MONTH}`,
    `${ITEMS}?filter=${encodeURIComponent("chain = 'base' AND revoked = false")}`,
    `${ITEMS}?offset=490`,
    `${ITEMS}?chain=devnet`,
    `${SHAPES}?${CITY}`,
    "/health",
  ].map((path) => ({ label: path, path: () => path }));
  return [
    ...fixed,
    { label: `${V0}/{uid}`, path: (uid) => `${V0}/${uid}` },
    { label: `${ITEMS}/{uid}`, path: (uid) => `${ITEMS}/${uid}` },
  ];
}

/** GET over a kept-alive agent: the status, or an error; never rejects. */
function get(base: string, path: string, agent: http.Agent): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.get(`${base}${path}`, { agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
      res.on("error", (e) => resolve({ error: e.message }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", (e) => resolve({ error: e.message }));
  });
}

const rssMbOf = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) / 1024 : Number.NaN;
};
const cpuTicksOf = (pid: number) => {
  const s = statOf(pid);
  return s[11]! + s[12]!;
};

async function main() {
  await benchDatabase(SOAK_DB, ARGS.rows, ARGS.keep);
  const dbUrl = benchDatabaseUrl(SOAK_DB);
  // A run starts from a fresh chain: no sync state of an earlier one.
  await admin("truncate sync_state, sync_blocks, sync_runs", dbUrl);
  const sampleUids = (
    await admin("select uid from location_proofs tablesample system (5) limit 1000", dbUrl)
  ).map((r) => String(r.uid));

  const devnet = await startDevnet({ port: await freePort(), blockTimeSeconds: 1 });
  const env = { CRON_SECRET: SECRET, CHAINS: "devnet", RPC_URL_DEVNET: devnet.rpcUrl };
  const { output, server } = await serveBuilt(dbUrl, { env });
  // A second instance of the same output for the cron, as Vercel runs it: a function's invocations get instances of
  // their own (a function's instances serve only that function), so a sync never holds the event loop the reads
  // wait on. Both share the one database.
  const cronServer = await serveOutput(output.dir, NODE24, { ...servedEnv(dbUrl), ...env });
  const base = server.url;
  const paths = mix();
  const agent = new http.Agent({ keepAlive: true, maxSockets: ARGS.connections });
  const uidAt = (i: number) => sampleUids[(i * 7919) % sampleUids.length]!;
  // A deployed function serves warm under steady traffic (its cold start is bench:cold's figure): every request of
  // the mix runs ARGS["warm-up"] times first, so that the minutes time compiled code; then every connection reads
  // the mix for ARGS["warm-up-seconds"], so that the minutes start with the heap a server under this load settles
  // at (the memory goal is about what it does after that: grow or stay).
  let warmUpErrors = 0;
  for (let round = 0; round < ARGS["warm-up"]; round++) {
    const answers = await Promise.all(paths.map((p, k) => get(base, p.path(uidAt(round * 31 + k)), agent)));
    warmUpErrors += answers.filter((r) => !("status" in r) || r.status !== 200).length;
  }
  const warmUntil = Date.now() + ARGS["warm-up-seconds"] * 1000;
  await Promise.all(
    Array.from({ length: ARGS.connections }, async (_, c) => {
      for (let i = c; Date.now() < warmUntil; i++) {
        const r = await get(base, paths[i % paths.length]!.path(uidAt(i + c)), agent);
        if (!("status" in r) || r.status !== 200) warmUpErrors++;
      }
    }),
  );
  const started = Date.now();
  const minuteOf = (t: number) => Math.floor((t - started) / 60_000);
  const minutes: Minute[] = Array.from({ length: ARGS.minutes }, () => ({
    latencies: [],
    errors: 0,
    crons: [],
    written: 0,
  }));
  const errorSamples = new Map<string, number>();
  const written: Written[] = [];
  const checkAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let stopping = false;

  console.log(
    `soak: ${ARGS.minutes} min, ${ARGS.connections} connections of mixed reads against the built functions on Node ${server.version} over PostgreSQL ${await postgresVersion()} (${ARGS.rows.toLocaleString("en")} synthetic proofs); devnet at ${devnet.rpcUrl}, ${ARGS.batch} proofs written every ${ARGS["write-every"]} s, cron every minute`,
  );

  /** Marks the written proofs the single-proof endpoint now serves. */
  const checkServed = async () => {
    for (const w of written.filter((x) => x.servedAt === undefined)) {
      const r = await get(base, `${V0}/${w.uid}`, checkAgent);
      if ("status" in r && r.status === 200) w.servedAt = Date.now();
    }
  };
  const runCron = async () => {
    const t = performance.now();
    const res = await fetch(`${cronServer.url}/api/cron/sync`, {
      headers: { authorization: `Bearer ${SECRET}` },
    });
    const report = (await res.json()) as { chains?: { attestations?: number }[] };
    const indexed = report.chains?.reduce((n, c) => n + (c.attestations ?? 0), 0) ?? 0;
    await checkServed();
    return `${res.status} ${Math.round(performance.now() - t)}ms +${indexed}`;
  };

  // The cron, on vercel.json's schedule.
  const vercel = JSON.parse(readFileSync(join(ROOT, "vercel.json"), "utf8")) as {
    crons: { path: string; schedule: string }[];
  };
  const cron = new Cron(
    vercel.crons.find((c) => c.path === "/api/cron/sync")!.schedule,
    { protect: true },
    async () => {
      const at = Date.now();
      const line = await runCron().catch((e: Error) => `failed: ${e.message}`);
      minutes[Math.min(minuteOf(at), ARGS.minutes - 1)]?.crons.push(line);
    },
  );

  // The writer: proofs on chain through EAS, as any client writes them.
  let sequence = 0;
  const writer = (async () => {
    while (!stopping) {
      const items = Array.from({ length: ARGS.batch }, () => {
        const i = sequence++;
        const lon = ((i * 37.77) % 340) - 170;
        const lat = ((i * 13.31) % 140) - 70;
        return {
          data: encodeLocationProof({
            eventTimestamp: BigInt(Math.floor(Date.now() / 1000)),
            locationType: "DecimalDegrees<string>",
            location: `${lon.toFixed(6)}, ${lat.toFixed(6)}`,
            recipeType: ["soak"],
            recipePayload: ["0x01"],
            memo: `soak proof ${i}`,
          }),
        };
      });
      const uids = await attest(devnet.rpcUrl, devnet.eas, items);
      const at = Date.now();
      for (const uid of uids) written.push({ uid, at });
      const m = minutes[minuteOf(at)];
      if (m) m.written += uids.length;
      await new Promise((r) => setTimeout(r, ARGS["write-every"] * 1000));
    }
  })();

  // Memory and CPU at each minute's end (the last one also when the readers stop).
  let lastTicks = cpuTicksOf(server.pid);
  let lastSample = Date.now();
  const sample = () => {
    const m = minutes[Math.min(minuteOf(Date.now() - 1000), ARGS.minutes - 1)];
    if (!m || m.rssMb !== undefined) return;
    const ticks = cpuTicksOf(server.pid);
    m.rssMb = rssMbOf(server.pid);
    m.cronRssMb = rssMbOf(cronServer.pid);
    m.cpuPercent = ((ticks - lastTicks) / CLK_TCK / ((Date.now() - lastSample) / 1000)) * 100;
    lastTicks = ticks;
    lastSample = Date.now();
  };
  const sampler = setInterval(sample, 60_000);

  // The readers.
  const deadline = started + ARGS.minutes * 60_000;
  const byType = paths.map(() => [] as number[]);
  const clients = Array.from({ length: ARGS.connections }, async (_, c) => {
    for (let i = c; Date.now() < deadline; i++) {
      const k = i % paths.length;
      const path = paths[k]!.path(uidAt(i + c));
      const t = performance.now();
      const r = await get(base, path, agent);
      const ms = performance.now() - t;
      const m = minutes[minuteOf(Date.now())];
      if (!m) break;
      if ("status" in r && r.status === 200) {
        m.latencies.push(ms);
        byType[k]!.push(ms);
      } else {
        m.errors++;
        const what =
          "status" in r ? `HTTP ${r.status} ${paths[k]!.label}` : `${r.error} (${paths[k]!.label})`;
        errorSamples.set(what, (errorSamples.get(what) ?? 0) + 1);
      }
    }
  });

  let failed = false;
  try {
    await Promise.all(clients);
    sample();
    clearInterval(sampler);
    cron.stop();
    stopping = true;
    await writer;
    // The last proofs: confirmed after two blocks, indexed by one more sync, as the next cron would.
    await new Promise((r) => setTimeout(r, 3000));
    const last = await runCron();

    console.log(
      `\n${pad("minute", 7)} ${lpad("requests", 9)} ${lpad("errors", 7)} ${lpad("p50 ms", 7)} ${lpad("p99 ms", 7)} ${lpad("p99/p50", 8)} ${lpad("RSS MB", 7)} ${lpad("CPU %", 6)} ${lpad("cron MB", 7)} ${lpad("written", 8)}  cron (status, duration, attestations indexed)`,
    );
    const ratios: number[] = [];
    for (const [i, m] of minutes.entries()) {
      const p50 = percentile(m.latencies, 0.5);
      const p99 = percentile(m.latencies, 0.99);
      ratios.push(p99 / p50);
      console.log(
        `${pad(String(i + 1), 7)} ${lpad(String(m.latencies.length + m.errors), 9)} ${lpad(String(m.errors), 7)} ${lpad(f1(p50), 7)} ${lpad(f1(p99), 7)} ${lpad((p99 / p50).toFixed(1), 8)} ${lpad(f1(m.rssMb ?? Number.NaN), 7)} ${lpad(f1(m.cpuPercent ?? Number.NaN), 6)} ${lpad(f1(m.cronRssMb ?? Number.NaN), 7)} ${lpad(String(m.written), 8)}  ${m.crons.join("; ") || "-"}`,
      );
    }
    console.log(`after the load: one more sync ${last}`);
    console.log(
      `\n${pad("request (over the whole run)", 96)} ${lpad("count", 7)} ${lpad("p50 ms", 7)} ${lpad("p99 ms", 7)}`,
    );
    for (const [k, p] of paths.entries()) {
      const xs = byType[k]!;
      console.log(
        `${pad(decodeURIComponent(p.label).slice(0, 96), 96)} ${lpad(String(xs.length), 7)} ${lpad(f1(percentile(xs, 0.5)), 7)} ${lpad(f1(percentile(xs, 0.99)), 7)}`,
      );
    }

    const errors = minutes.reduce((n, m) => n + m.errors, 0) + warmUpErrors;
    const requests = minutes.reduce((n, m) => n + m.latencies.length + m.errors, 0);
    console.log(
      `\nerrors: ${errors} of ${requests} requests (goal 0)${warmUpErrors ? `, ${warmUpErrors} of them while warming up` : ""}${errors ? ": FAIL" : ""}`,
    );
    for (const [what, n] of [...errorSamples].slice(0, 10)) console.log(`  ${n} × ${what}`);
    const worst = Math.max(...ratios);
    const tail = ratios.every((r) => r <= 3);
    console.log(
      `latency: p99/p50 at most ${worst.toFixed(1)} in any minute (goal <= 3)${tail ? "" : ": FAIL"}`,
    );
    const rss = minutes.map((m) => m.rssMb).filter((x): x is number => x !== undefined && Number.isFinite(x));
    const growth = rss.length >= 2 ? (rss[rss.length - 1]! - rss[0]!) / rss[0]! : 0;
    const flat = growth <= 0.1;
    console.log(
      `memory: ${rss.map((x) => x.toFixed(0)).join(" → ")} MB; ${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)}% after the first minute (goal flat: <= +10%)${flat ? "" : ": FAIL"}`,
    );
    const unserved = written.filter((w) => w.servedAt === undefined);
    const delays = written.filter((w) => w.servedAt !== undefined).map((w) => (w.servedAt! - w.at) / 1000);
    console.log(
      `proofs: ${written.length} written on chain, ${written.length - unserved.length} served after the syncs${unserved.length ? `; NOT served: ${unserved.map((w) => w.uid).join(", ")}` : " (every one)"}; written → served: p50 ${f1(percentile(delays, 0.5))} s, max ${f1(Math.max(...delays))} s (the cron runs once a minute)`,
    );
    failed = errors > 0 || !tail || !flat || unserved.length > 0 || written.length === 0;
  } finally {
    clearInterval(sampler);
    cron.stop();
    stopping = true;
    agent.destroy();
    checkAgent.destroy();
    await server.stop();
    await cronServer.stop();
    output.remove();
    await devnet.stop();
    if (ARGS.keep) {
      // Take out what the soak added, so that the next run finds the data as loaded.
      await admin("delete from location_proofs where chain = 'devnet'", dbUrl);
      await admin("truncate sync_state, sync_blocks, sync_runs", dbUrl);
    } else {
      await admin(`drop database if exists ${SOAK_DB} with (force)`);
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
