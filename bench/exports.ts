/**
 * Downloads of every proof (issue 37), on `--rows` synthetic proofs (1,000,000 by default) in PostgreSQL, served by
 * the built functions on Node 24 (serveBuilt): for each format the whole location-proofs collection in one request,
 * beside PostgreSQL's own `COPY (SELECT …) TO STDOUT` of the same rows and columns (each feature's JSON text, the
 * input of every writer, in the items' order), timed right before each format (and before the harvest) in the same
 * run, each ratio to the COPY beside it. Prints rows per second, the ratio to COPY (goal
 * ≤ 1.5 ×), the time to the first byte (goal ≤ 100 ms), the server's peak resident memory above idle during the
 * download (goal ≤ +64 MB), and the harvest of the same rows by paging GeoJSON (limit=1000, next links).
 *
 *   npm run bench:exports [-- --rows N] [--keep] [--db NAME] [--formats csv,fgb] [--no-harvest]
 *                         [--heap MB] [--semi MB] [--batch ROWS] [--batch-bytes BYTES] [--cpu-prof DIR]
 *                         [--node-args=FLAGS] [--encoder-thread]
 *
 * `--heap` serves with --max-old-space-size and `--semi` with --max-semi-space-size, over the values the functions are
 * deployed with (FUNCTION_NODE_OPTIONS, scripts/build-output.ts, which the served output applies);
 * `--batch` sets EXPORT_BATCH_ROWS, `--batch-bytes` EXPORT_BATCH_BYTES; `--node-args` adds Node flags (one string,
 * spaced); `--cpu-prof` writes the server's CPU profile (node --cpu-prof) to DIR; `--encoder-thread` serves with
 * EXPORT_ENCODER_THREAD=1 (GeoParquet encoded on a worker thread, lib/exports/thread.ts).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { PgDialect } from "drizzle-orm/pg-core";
import { EXPORT_FORMATS } from "../lib/exports/formats.js";
import { pointFeatureJson } from "../lib/proofs/json-sql.js";
import { admin, benchArgs, benchDatabase, benchDatabaseUrl, requestOk, serveBuilt } from "./common.js";
import { f1, lpad, pad } from "./figures.js";

const ARGS = benchArgs({
  numbers: { rows: 1_000_000, heap: 0, semi: 0, batch: 0, "batch-bytes": 0 },
  flags: ["keep", "no-harvest", "encoder-thread"],
  texts: ["db", "formats", "cpu-prof", "node-args"],
});
const DB = ARGS.db ?? "lpqs_bench_exports";
const FORMATS = ARGS.formats
  ? EXPORT_FORMATS.filter((x) => ARGS.formats!.split(",").includes(x.f))
  : EXPORT_FORMATS;
const NODE_ARGS = [
  ...(ARGS.heap ? [`--max-old-space-size=${ARGS.heap}`] : []),
  ...(ARGS.semi ? [`--max-semi-space-size=${ARGS.semi}`] : []),
  ...(ARGS["node-args"] ? ARGS["node-args"].split(" ") : []),
  ...(ARGS["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${ARGS["cpu-prof"]}`] : []),
];

const rssKb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
};

/** The CPU time (user and system) the server has used, in ms: unlike wall time, little moved by a loaded machine. */
const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime, fields 14 and 15 of stat (11 and 12 after the command), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** The CPU time of each PostgreSQL backend serving the benchmark's database (its connections' processes), in ms. */
const backendsCpuMs = (): Map<number, number> => {
  const ms = new Map<number, number>();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`postgres ${DB} `))
        ms.set(Number(pid), cpuMs(Number(pid)));
    } catch {
      // gone meanwhile
    }
  }
  return ms;
};

/**
 * The database's CPU over a span: every backend's reading at the start, then each one's latest, sampled every 100
 * ms, so a backend that ends meanwhile (psql's for a COPY, a pool's idle connection) keeps its share.
 */
function databaseCpu(): { stop(): number } {
  const start = backendsCpuMs();
  const last = new Map(start);
  const sample = () => {
    for (const [pid, ms] of backendsCpuMs()) last.set(pid, ms);
  };
  const timer = setInterval(sample, 100);
  let total: number | undefined;
  return {
    // The first call ends the span; a later one (a `finally` after it) returns the same figure.
    stop: () => {
      if (total !== undefined) return total;
      clearInterval(timer);
      sample();
      total = 0;
      for (const [pid, latest] of last) total += latest - (start.get(pid) ?? 0);
      return total;
    },
  };
}

/** A whole download: bytes, time to the first byte, total time, and the server's peak RSS while it ran. */
async function download(url: string, pid: number) {
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssKb(pid));
  }, 20);
  const started = performance.now();
  const cpuBefore = cpuMs(pid);
  const db = databaseCpu();
  try {
    return await new Promise<{
      bytes: number;
      ttfbMs: number;
      ms: number;
      rows: number;
      peakKb: number;
      cpuMs: number;
      dbMs: number;
    }>((resolve, reject) => {
      http
        .get(url, (res) => {
          let ttfb = -1;
          let bytes = 0;
          res.on("data", (chunk: Buffer) => {
            if (ttfb < 0) ttfb = performance.now() - started;
            bytes += chunk.length;
          });
          res.on("error", reject);
          res.on("end", () => {
            if (res.statusCode !== 200) return reject(new Error(`${url}: HTTP ${res.statusCode}`));
            peak = Math.max(peak, rssKb(pid));
            resolve({
              bytes,
              ttfbMs: ttfb,
              ms: performance.now() - started,
              rows: Number(res.headers["x-export-rows"]),
              peakKb: peak,
              cpuMs: cpuMs(pid) - cpuBefore,
              dbMs: db.stop(),
            });
          });
        })
        .on("error", reject);
    });
  } finally {
    clearInterval(sampler);
    db.stop();
  }
}

/** PostgreSQL's own COPY of the same rows and columns: each feature's JSON text, in the items' default order. */
async function copyBaseline(url: string): Promise<{ ms: number; bytes: number; cpuMs: number }> {
  const json = new PgDialect().sqlToQuery(pointFeatureJson()).sql;
  const query = `copy (select ${json} from location_proofs order by event_timestamp desc nulls last, uid, chain_id) to stdout`;
  const started = performance.now();
  const db = databaseCpu();
  // Read as it comes and counted, as a client reads a download.
  const child = spawn("psql", [url, "-X", "-q", "-c", query], { stdio: ["ignore", "pipe", "inherit"] });
  let bytes = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const cpuMs = db.stop();
  if (code !== 0) throw new Error(`psql COPY exited with ${code}`);
  return { ms: performance.now() - started, bytes, cpuMs };
}

/** The same rows by paging the GeoJSON items (limit=1000, following next links), as a client does without downloads. */
async function harvest(base: string): Promise<{ ms: number; rows: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let url: string | undefined = `${base}/api/ogc/collections/location-proofs/items?limit=1000`;
  let rows = 0;
  const started = performance.now();
  while (url) {
    const page = JSON.parse((await requestOk(url, agent)).toString("utf8"));
    rows += page.features.length;
    // The built functions write links for the origin a deployment has (https); the same path and query, here.
    const next: string | undefined = page.links.find((l: { rel: string }) => l.rel === "next")?.href;
    url = next ? `${base}${new URL(next).pathname}${new URL(next).search}` : undefined;
  }
  agent.destroy();
  return { ms: performance.now() - started, rows };
}

await benchDatabase(DB, ARGS.rows, true);
const dbUrl = benchDatabaseUrl(DB);
// One invocation's row budget is the deployment's; the benchmark reads the whole collection in one response.
const { output, server } = await serveBuilt(dbUrl, {
  env: {
    EXPORT_MAX_ROWS: String(ARGS.rows * 2),
    ...(ARGS.batch ? { EXPORT_BATCH_ROWS: String(ARGS.batch) } : {}),
    ...(ARGS["batch-bytes"] ? { EXPORT_BATCH_BYTES: String(ARGS["batch-bytes"]) } : {}),
    ...(ARGS["encoder-thread"] ? { EXPORT_ENCODER_THREAD: "1" } : {}),
  },
  nodeArgs: NODE_ARGS,
});
try {
  const base = server.url;
  const pid = server.pid;
  // Warm: the function loaded, a small download of each format (the encoders' first use), then idle memory.
  for (const x of FORMATS)
    await download(`${base}/api/ogc/collections/location-proofs/items?f=${x.f}&limit=1000`, pid);
  await new Promise((r) => setTimeout(r, 1000));
  const idleKb = rssKb(pid);
  console.log(
    `\nexports of ${ARGS.rows.toLocaleString("en")} proofs (Node ${process.version} client; built functions on Node 24)`,
  );
  console.log(`server idle RSS: ${f1(idleKb / 1024)} MB`);
  console.log(
    "each format right after its own COPY (SELECT feature json …) TO STDOUT: a shared machine's load drifts, so each ratio is to the COPY beside it\n",
  );
  console.log(
    `${pad("format", 12)}${lpad("COPY s", 8)}${lpad("time s", 9)}${lpad("× COPY", 9)}${lpad("k rows/s", 10)}${lpad("MB", 9)}${lpad("TTFB ms", 9)}${lpad("peak +MB", 10)}${lpad("server CPU s", 14)}${lpad("db CPU s", 10)}${lpad("CPU × COPY", 12)}`,
  );
  let copy = { ms: 0, bytes: 0, cpuMs: 0 };
  for (const x of FORMATS) {
    // The database's CPU for the COPY, beside a download's server and database CPU: a ratio a loaded machine moves
    // far less than wall time (on a machine with fewer cores than runnable processes, wall time is their sum).
    copy = await copyBaseline(dbUrl);
    const d = await download(`${base}/api/ogc/collections/location-proofs/items?f=${x.f}`, pid);
    if (d.rows !== ARGS.rows) throw new Error(`${x.f}: ${d.rows} rows announced, ${ARGS.rows} expected`);
    console.log(
      `${pad(x.f, 12)}${lpad(f1(copy.ms / 1000), 8)}${lpad(f1(d.ms / 1000), 9)}${lpad((d.ms / copy.ms).toFixed(2), 9)}${lpad(f1(ARGS.rows / (d.ms / 1000) / 1000), 10)}${lpad(f1(d.bytes / 1e6), 9)}${lpad(f1(d.ttfbMs), 9)}${lpad(f1((d.peakKb - idleKb) / 1024), 10)}${lpad(f1(d.cpuMs / 1000), 14)}${lpad(f1(d.dbMs / 1000), 10)}${lpad(((d.cpuMs + d.dbMs) / copy.cpuMs).toFixed(2), 12)}`,
    );
  }
  console.log(
    `(COPY: ${f1(copy.bytes / 1e6)} MB, ${f1(ARGS.rows / (copy.ms / 1000) / 1000)} k rows/s, database CPU ${f1(copy.cpuMs / 1000)} s, the last)`,
  );
  if (!ARGS["no-harvest"]) {
    copy = await copyBaseline(dbUrl);
    const h = await harvest(base);
    console.log(
      `${pad("harvest", 12)}${lpad(f1(copy.ms / 1000), 8)}${lpad(f1(h.ms / 1000), 9)}${lpad((h.ms / copy.ms).toFixed(2), 9)}${lpad(f1(h.rows / (h.ms / 1000) / 1000), 10)}   (GeoJSON pages of 1000, next links)`,
    );
  }
  console.log("\ngoals: ≤ 1.5 × COPY, TTFB ≤ 100 ms, peak ≤ +64 MB over idle");
} finally {
  await server.stop();
  output.remove();
  // A million proofs are a large database on a shared disk: dropped unless --keep (a rerun then reuses it).
  if (!ARGS.keep) await admin(`drop database if exists ${DB} with (force)`);
}
