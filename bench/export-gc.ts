/**
 * A download's CPU and garbage collection, in process: `npm run bench:exports-gc [-- options]`.
 *
 * The route handler of the point collection's items serves `--rows` rows (200,000) in each format of `--formats`
 * (parquet) straight to this process, `--rounds` times (3), on Node 24 with the functions' heap flags
 * (FUNCTION_NODE_OPTIONS) and any `--node-args`. Each round prints its wall time, this process's CPU time, the
 * young- and old-generation collections (their time and number, from perf_hooks), the bytes sent and the resident
 * memory. It takes the database of bench:exports (`--db`, `lpqs_bench_exports`; loaded with a million proofs if it does not hold
 * them). Unlike bench:exports it has no HTTP and no second process, so the CPU and the collections are this one's:
 * a quick, steadier way to compare two versions of a writer (docs/performance.md, Downloads). It checks no goal.
 *
 * `--alloc-prof FILE` writes a sampling heap profile of every round (V8's, through the inspector, with the objects the
 * collector has already taken away counted too: what each function allocates, not what is left alive). Open it in
 * Chrome's DevTools (Memory) or read its JSON: the allocation that the young collections pay for shows by function.
 */
import { spawnSync } from "node:child_process";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { FUNCTION_NODE_OPTIONS } from "../scripts/build-output.js";
import { benchArgs, benchDatabase, benchDatabaseUrl, ROOT, requireNode24 } from "./common.js";

const ARGS = benchArgs({
  numbers: { rows: 200_000, rounds: 3 },
  texts: ["db", "formats", "node-args", "alloc-prof"],
});
const DB = ARGS.db ?? "lpqs_bench_exports";

// The functions' Node and heap flags: the collector's work depends on both.
if (!process.env.BENCH_EXPORT_GC_CHILD) {
  await benchDatabase(DB, 1_000_000, true);
  const run = spawnSync(
    requireNode24(),
    [
      ...FUNCTION_NODE_OPTIONS.split(" "),
      ...(ARGS["node-args"] ? ARGS["node-args"].split(" ") : []),
      "--import",
      "tsx",
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: "inherit", cwd: ROOT, env: { ...process.env, BENCH_EXPORT_GC_CHILD: "1" } },
  );
  process.exit(run.status ?? 1);
}

const { GET } = await import("../api/ogc/collections/location-proofs/items/index.js");
const { connect, setDatabase } = await import("../db/client.js");
const { loadConfig, setConfig } = await import("../lib/config.js");
const url = benchDatabaseUrl(DB);
setConfig(loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0" }));
setDatabase(await connect(url, "pg"));

const gc = { young: 0, youngN: 0, old: 0, oldN: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    // perf_hooks' kinds: 1 a young-generation collection (scavenge); the others (mark-compact, incremental
    // marking, weak callbacks) are the old generation's work.
    if ((entry as unknown as { detail: { kind: number } }).detail.kind === 1) {
      gc.young += entry.duration;
      gc.youngN++;
    } else {
      gc.old += entry.duration;
      gc.oldN++;
    }
  }
}).observe({ entryTypes: ["gc"] });

console.log(
  `Node ${process.versions.node} (${process.execArgv.filter((a) => a.startsWith("--m") || a.startsWith("--h")).join(" ")}), ${ARGS.rows.toLocaleString("en")} rows per request from ${DB}`,
);
const profiler = ARGS["alloc-prof"] ? new (await import("node:inspector/promises")).Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post("HeapProfiler.startSampling", {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}
for (const format of (ARGS.formats ?? "parquet").split(",")) {
  for (let round = 1; round <= ARGS.rounds; round++) {
    Object.assign(gc, { young: 0, youngN: 0, old: 0, oldN: 0 });
    const cpu = process.cpuUsage();
    const started = performance.now();
    const res = await GET(
      new Request(`http://bench/api/ogc/collections/location-proofs/items?f=${format}&limit=${ARGS.rows}`),
    );
    if (res.status !== 200) throw new Error(`${format}: ${res.status} ${await res.text()}`);
    let bytes = 0;
    const reader = res.body!.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      bytes += chunk.value.length;
    const used = process.cpuUsage(cpu);
    console.log(
      `${format.padEnd(10)} round ${round}: ${(performance.now() - started).toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms, young collections ${gc.young.toFixed(0)} ms (${gc.youngN}), old ${gc.old.toFixed(0)} ms (${gc.oldN}), ${(bytes / 1e6).toFixed(1)} MB, RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
    );
  }
}
if (profiler) {
  const { profile } = await profiler.post("HeapProfiler.stopSampling");
  (await import("node:fs")).writeFileSync(ARGS["alloc-prof"]!, JSON.stringify(profile));
  console.log(`allocation profile written to ${ARGS["alloc-prof"]}`);
}
process.exit(0);
