/**
 * The output server of scripts/vercel-output/server.ts (the built functions as Vercel invokes them), with a second,
 * control port for bench:hostile's memory figures: `node --expose-gc memory-server.mjs <output dir>`, the control
 * port in HOSTILE_CONTROL_PORT. It is bundled and started by serveScript like the output server itself, so the
 * functions run exactly as in the other benchmarks; only the control port is added.
 *
 * GET /start: a full collection (twice: the second takes what the first's finalisers released), then the kernel's
 * peak resident set (VmHWM) reset to the current one (`5` written to /proc/self/clear_refs), and from there on the
 * heap watched: a sample of the V8 heap in use plus the memory V8 counts outside it (`heapUsed + external`; external
 * includes the ArrayBuffers: the pg driver's and the response's Buffers) every SAMPLE_MS, and the same two figures
 * just before each collection (v8.GCProfiler), which a sample between two ticks would miss.
 * GET /stop: how far each rose above its value at /start: `rssKb` (VmHWM − VmRSS at /start) and `heapBytes` (the
 * highest heap figure seen − the one at /start).
 * The rise of the resident set misses memory V8 had already committed before /start and reused (the young
 * generation's pages stay resident after a collection), so it is a lower bound; the heap figure sees that reuse but
 * is sampled, so it is one too; bench:hostile reports the larger.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { GCProfiler } from "node:v8";
import "../scripts/vercel-output/server.js";

const SAMPLE_MS = 2;
const port = Number(process.env.HOSTILE_CONTROL_PORT);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("memory-server needs node --expose-gc");
if (!Number.isInteger(port) || port <= 0) throw new Error("memory-server needs HOSTILE_CONTROL_PORT");

/** A kB figure of /proc/self/status (VmRSS, VmHWM). */
function statusKb(field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync("/proc/self/status", "utf8"));
  if (!m) throw new Error(`no ${field} in /proc/self/status`);
  return Number(m[1]);
}

const heapNow = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

let watch:
  | { rssKb: number; heap: number; peak: number; timer: NodeJS.Timeout; profiler: GCProfiler }
  | undefined;

function start(): Record<string, number> {
  if (watch) stop();
  gc!();
  gc!();
  writeFileSync("/proc/self/clear_refs", "5");
  const rssKb = statusKb("VmRSS");
  const heap = heapNow();
  const profiler = new GCProfiler();
  profiler.start();
  const w = {
    rssKb,
    heap,
    peak: heap,
    profiler,
    timer: setInterval(() => {
      w.peak = Math.max(w.peak, heapNow());
    }, SAMPLE_MS),
  };
  watch = w;
  return { rssKb, heapBytes: heap };
}

function stop(): Record<string, number> {
  const w = watch;
  if (!w) throw new Error("/stop without /start");
  watch = undefined;
  clearInterval(w.timer);
  let peak = Math.max(w.peak, heapNow());
  for (const s of w.profiler.stop()?.statistics ?? []) {
    const before = s.beforeGC.heapStatistics;
    peak = Math.max(peak, before.usedHeapSize + before.externalMemory);
  }
  return { rssKb: statusKb("VmHWM") - w.rssKb, heapBytes: peak - w.heap };
}

createServer((req, res) => {
  try {
    const body = req.url === "/start" ? start() : req.url === "/stop" ? stop() : undefined;
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  } catch (error) {
    res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
  }
}).listen(port, "127.0.0.1");
