// Cold import time of a route module in a fresh Node process: `npm run bench:cold -- [route file]`.
// Measured twice: bundled (esbuild, code-split so lazily imported drivers stay out of the cold path) and unbundled
// (each file transpiled alone, node_modules resolved at run time — how an unbundled function loads).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENTRY = process.argv[2] ?? "api/v0/location-proofs/index.ts";
const RUNS = 9;

function coldImport(file: string): number[] {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const t=performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now()-t)`,
      ],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "silent" } },
    );
    times.push(Number(out.toString().trim()));
  }
  return times.sort((a, b) => a - b);
}

const dir = mkdtempSync(join(ROOT, "node_modules/.cold-import-"));
try {
  await build({
    entryPoints: [join(ROOT, ENTRY)],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: join(dir, "bundled"),
    logLevel: "silent",
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  // Unbundled: transpile every project file on its own, keep the tree so node resolves node_modules itself.
  const sources = ["api", "lib", "db"].flatMap((d) =>
    readdirSync(join(ROOT, d), { recursive: true, encoding: "utf8" }).map((f) => join(ROOT, d, f)),
  );
  await build({
    entryPoints: sources.filter((s) => s.endsWith(".ts")),
    bundle: false,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: join(dir, "plain"),
    outbase: ROOT,
    logLevel: "silent",
  });
  writeFileSync(join(dir, "package.json"), '{"type":"module","version":"0.0.0"}');
  writeFileSync(join(dir, "plain", "package.json"), '{"type":"module","version":"0.0.0"}');
  const bundled = coldImport(join(dir, "bundled", ENTRY.replace(/^.*\//, "").replace(/\.ts$/, ".js")));
  const plain = coldImport(join(dir, "plain", ENTRY.replace(/\.ts$/, ".js")));
  const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!.toFixed(1);
  console.log(`cold import of ${ENTRY} in a fresh node process (median of ${RUNS}):`);
  console.log(`  bundled (esbuild, code-split): ${median(bundled)} ms`);
  console.log(`  unbundled (per-file):          ${median(plain)} ms   (goal ≤ 150 ms)`);
  console.log(`  (${relative(ROOT, dir)} removed)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
