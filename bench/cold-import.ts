// Cold start of what deploys: `npm run bench:cold [-- /api/path …]`. Builds the output (scripts/build.ts) into a
// temporary directory outside the repository and imports each function's bundle in a fresh process, median of 10,
// on Node 24 (production, nodejs24.x) and Node 20 (local development). Beside it, today's per-file figure: the
// same function transpiled file by file with node_modules resolved at run time, which is how `vercel build`
// compiles an api/ file when it builds the functions itself (before this project's build, the deployed form).
// A function's size is what importing it loads: its entry file and the chunks that imports statically, transitively
// (only the publishing function has chunks). Below it, each chunk that a dynamic import loads later (the verifier on
// a POST, a database driver on the first query) with what it adds and its import time on Node 24 after the entry's.
// Goals: every public function ≤ 150 ms on Node 24, sync and cron functions ≤ 300 ms; public ones ≤ 1.5 MB loaded.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import {
  buildInto,
  functionModules,
  HANDLER,
  node24Binary,
  outputFunctions,
} from "../scripts/build-output.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS = 10;
const GOAL_MS = { public: 150, restricted: 300 };
const GOAL_BYTES = 1.5 * 1024 * 1024;

const NODE24 = node24Binary(ROOT);
const NODE20 = process.env.NODE20 ?? (process.versions.node.startsWith("20.") ? process.execPath : undefined);
if (!NODE24) throw new Error("Node 24 not found: npm ci --prefix .ci/node24 (or set NODE24)");
if (!NODE20) throw new Error("Node 20 not found: run this under Node 20 or set NODE20");

/** The median time to import `file` in a fresh process, `after` imported first (untimed) when given. */
function median(node: string, file: string, after?: string): number {
  const times: number[] = [];
  const first = after ? `await import(${JSON.stringify(after)}); ` : "";
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(
      node,
      [
        "--input-type=module",
        "-e",
        `${first}const t=performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now()-t)`,
      ],
      { env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent" } },
    );
    times.push(Number(out.toString().trim()));
  }
  times.sort((a, b) => a - b);
  return (times[RUNS / 2 - 1]! + times[RUNS / 2]!) / 2;
}

const only = process.argv.slice(2);
const functions = outputFunctions(ROOT).filter((fn) => only.length === 0 || only.includes(fn.route.path));
const out = mkdtempSync(join(tmpdir(), "cold-import-"));
// Per-file output must sit inside the repository so that node_modules resolves as it would next to the source.
const plain = mkdtempSync(join(ROOT, "node_modules/.cold-import-"));
try {
  buildInto(ROOT, out);
  const sources = ["api", "lib", "db"].flatMap((d) =>
    readdirSync(join(ROOT, d), { recursive: true, encoding: "utf8" }).map((f) => join(ROOT, d, f)),
  );
  await build({
    entryPoints: sources.filter((s) => s.endsWith(".ts")),
    bundle: false,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: plain,
    outbase: ROOT,
    logLevel: "silent",
  });
  writeFileSync(join(plain, "package.json"), '{"type":"module"}');

  const version = (node: string) => execFileSync(node, ["--version"]).toString().trim();
  console.log(
    `cold import of each built function in a fresh process, median of ${RUNS}: Node ${version(NODE24)} and ${version(NODE20)}`,
  );
  console.log(
    `(bundled = .vercel/output as deployed, from ${out}; per-file = file-by-file, node_modules at run time;\n` +
      " loads = what importing the function loads; later = a chunk a dynamic import loads, after the function)\n",
  );
  console.log(
    `${"function".padEnd(56)} ${"loads".padStart(8)}  ${"24 bundled".padStart(10)} ${"24 per-file".padStart(11)}  ${"20 bundled".padStart(10)} ${"20 per-file".padStart(11)}  goal`,
  );
  const misses: string[] = [];
  const mb = (dir: string, files: string[]) =>
    `${(files.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0) / 1024 / 1024).toFixed(2)} MB`;
  for (const fn of functions) {
    const dir = join(out, "functions", fn.dir);
    const bundle = join(dir, HANDLER);
    const perFile = join(plain, fn.route.file.slice(ROOT.length).replace(/\.ts$/, ".js"));
    const { loaded, dynamic } = await functionModules(dir);
    const size = loaded.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
    const b24 = median(NODE24, bundle);
    const p24 = median(NODE24, perFile);
    const b20 = median(NODE20, bundle);
    const p20 = median(NODE20, perFile);
    const goal = GOAL_MS[fn.access];
    const ok = b24 <= goal && (fn.access === "restricted" || size <= GOAL_BYTES);
    if (!ok) misses.push(fn.route.path);
    const ms = (x: number, w: number) => `${x.toFixed(1)} ms`.padStart(w);
    console.log(
      `${fn.route.path.padEnd(56)} ${mb(dir, loaded).padStart(8)}  ${ms(b24, 10)} ${ms(p24, 11)}  ${ms(b20, 10)} ${ms(p20, 11)}  ≤ ${goal} ms ${ok ? "ok" : "MISSED"}`,
    );
    for (const [root, files] of Object.entries(dynamic)) {
      const later = median(NODE24, join(dir, root), bundle);
      console.log(`${`  later: ${root}`.padEnd(56)} ${`+${mb(dir, files)}`.padStart(8)}  ${ms(later, 10)}`);
    }
  }
  console.log(
    misses.length
      ? `\nover the goal: ${misses.join(", ")}`
      : `\nevery function within its goal on Node 24 (public ≤ ${GOAL_MS.public} ms and ≤ 1.5 MB loaded; sync/cron ≤ ${GOAL_MS.restricted} ms)`,
  );
  if (misses.length) process.exitCode = 1;
} finally {
  rmSync(out, { recursive: true, force: true });
  rmSync(plain, { recursive: true, force: true });
}
