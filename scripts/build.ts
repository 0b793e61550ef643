// `npm run build`: writes the deployable output, .vercel/output (Vercel Build Output API v3). Vercel runs the same
// command (vercel.json builds → @vercel/static-build, which picks up a build that writes .vercel/output).
//   functions/<served path>.func/index.mjs   one ESM bundle per api/ file (esbuild, tree-shaken, nothing resolved
//                                            from node_modules at run time), its .vc-config.json, and the files
//                                            its `includeFiles` names (only that function's)
//   functions/<served path>.func/chunks/     the publishing function only: what it loads by dynamic import (the
//                                            verifier, on a POST) in chunks of its own, and the code both share;
//                                            beside the verifier's chunk, the WebAssembly it reads (BESIDE_MODULE)
//   functions/<served path>.func/parquet-worker.mjs   the downloads' functions: the GeoParquet encoder's thread,
//                                            bundled on its own (WORKERS)
//   static/                                  public/ and nothing else
//   config.json                              routes and crons from vercel.json (scripts/build-output.ts)
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type BuildOptions, build, type Metafile } from "esbuild";
import { bundleClientFiles } from "../lib/html/client-build.js";
import {
  BESIDE_MODULE,
  HANDLER,
  includedFiles,
  type ModuleImport,
  OPTIONAL_PEERS,
  type OutputFunction,
  outputConfig,
  outputFunctions,
  reachedModules,
  readVercelJson,
  vcConfig,
  WORKERS,
} from "./build-output.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** BUILD_OUT: another directory for the same output (the tests build into a temporary one). */
const OUT = process.env.BUILD_OUT ?? join(ROOT, ".vercel/output");

/**
 * Packages a read (public) function must not carry: the chain client, and the H3 decoder (large; locations are
 * decoded at index time), are the sync path's alone.
 */
const SYNC_ONLY = ["node_modules/viem/", "node_modules/abitype/", "node_modules/ox/", "node_modules/h3-js/"];
/**
 * node-redis serves REDIS_URL, the rate limiter's store for local runs and CI; deployments use Upstash's REST client.
 * It is a large part of every bundle (and parsing is most of a cold import), so the build replaces it
 * with a stub whose createClient() fails: set on Vercel, REDIS_URL makes the limiter fail open, and /health says so.
 */
const LOCAL_STORE = "@redis/client";
const LOCAL_STORE_STUB = `export function createClient() {
  throw new Error("REDIS_URL (node-redis over TCP) is for local runs and CI; on Vercel set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN");
}`;

/**
 * The signature check's WebAssembly (libsecp256k1): compiled as its module is imported, so only the publishing
 * function may carry it, and only in what its POST loads by dynamic import, never in what its GET loads.
 */
const VERIFIER_ONLY = ["node_modules/tiny-secp256k1/"];

/** Local-only drivers and tools: never in a deployed function. */
const NEVER = [
  "node_modules/@electric-sql/pglite/",
  "node_modules/@electric-sql/pglite-postgis/",
  "lib/local/",
  "lib/devnet/",
  "node_modules/drizzle-kit/",
  "node_modules/@redis/client/",
  "node_modules/esbuild/",
  "lib/html/client-build.ts",
];

/**
 * The pages' own scripts and styles, bundled from lib/html/client/ before the functions: the module that serves them
 * (lib/html/client-files.ts) is replaced by one that holds their texts, so the assets function reads no file and
 * carries no bundler.
 */
const CLIENT_FILES_MODULE = /[\\/]lib[\\/]html[\\/]client-files\.ts$/;
const clientFilesModule = (files: Record<string, string>) =>
  `export const CLIENT_FILE_NAMES = ${JSON.stringify(Object.keys(files))};
const FILES = ${JSON.stringify(files)};
export const clientFile = async (name) => FILES[name];`;

async function main() {
  const started = performance.now();
  // Migrations on deploy, opt-in: only a production build (Vercel sets VERCEL_ENV), so that a preview deployment
  // never migrates the production database it may share. First, so a failed migration fails the deployment.
  if (process.env.VERCEL_ENV === "production" && process.env.MIGRATE_ON_DEPLOY === "1") {
    execFileSync(
      process.execPath,
      [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "scripts/migrate.ts")],
      {
        stdio: "inherit",
      },
    );
  }
  const vercel = readVercelJson(ROOT);
  const functions = outputFunctions(ROOT, vercel);
  // Inside `vercel build` the CLI owns .vercel/output (it writes builds.json there): replace only what we write.
  for (const part of ["functions", "static", "config.json"])
    rmSync(join(OUT, part), { recursive: true, force: true });

  const clientFiles = await bundleClientFiles();
  const options = {
    absWorkingDir: ROOT,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    treeShaking: true,
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: "none",
    external: OPTIONAL_PEERS,
    metafile: true,
    logLevel: "warning",
    plugins: [
      {
        name: "local-store-stub",
        setup(b) {
          b.onResolve({ filter: new RegExp(`^${LOCAL_STORE}$`) }, () => ({
            path: LOCAL_STORE,
            namespace: "stub",
          }));
          b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({ contents: LOCAL_STORE_STUB, loader: "js" }));
        },
      },
      {
        name: "client-files",
        setup(b) {
          b.onLoad({ filter: CLIENT_FILES_MODULE }, () => ({
            contents: clientFilesModule(clientFiles),
            loader: "js",
          }));
        },
      },
    ],
    // CommonJS dependencies (pg, ws) call require() for Node built-ins; an ES module has none, so give it one.
    banner: {
      js: 'import { createRequire as __vcRequire } from "node:module"; const require = __vcRequire(import.meta.url);',
    },
  } satisfies BuildOptions;
  const entry = (fn: OutputFunction) => ({ in: fn.route.file, out: HANDLER.replace(/\.mjs$/, "") });
  // One build for the single-file functions. The publishing function gets a build of its own with code splitting,
  // so that what it imports dynamically (the verifier) becomes chunks inside its own directory that its GET never
  // loads; one build for all would share chunks between functions, and a function may hold only its own files.
  const single = functions.filter((fn) => !fn.publishes);
  const metafiles = await Promise.all([
    build({
      ...options,
      entryPoints: single.map((fn) => ({ ...entry(fn), out: `${fn.dir}/${entry(fn).out}` })),
      outdir: join(OUT, "functions"),
      splitting: false,
    }).then((r) => r.metafile),
    ...functions
      .filter((fn) => fn.publishes)
      .map((fn) =>
        build({
          ...options,
          entryPoints: [entry(fn)],
          outdir: join(OUT, "functions", fn.dir),
          splitting: true,
          chunkNames: "chunks/[name]-[hash]",
        }).then((r) => r.metafile),
      ),
  ]);
  const outputs: Metafile["outputs"] = Object.assign({}, ...metafiles.map((m) => m.outputs));
  // Each worker's bundle, built once (its own entry, nothing shared with a function's), then written beside the
  // output files that start it.
  const workers = join(OUT, ".workers");
  await Promise.all(
    WORKERS.map((w) =>
      build({
        ...options,
        metafile: false,
        entryPoints: [w.entry],
        outfile: join(workers, w.file),
        splitting: false,
      }),
    ),
  );
  const reached = new Map(
    functions.map((fn) => {
      const dir = join(OUT, "functions", fn.dir);
      return [fn, reachedModules(HANDLER, (file) => outputImports(outputs, dir, file))];
    }),
  );

  const problems: string[] = [];
  for (const fn of functions) {
    const dir = join(OUT, "functions", fn.dir);
    const { loaded, lazy } = reached.get(fn)!;
    problems.push(...check(fn, outputs, dir, loaded, lazy));
    // esbuild writes a chunk for every dynamic import it saw, also one in code that tree shaking then dropped: such a
    // chunk is imported by nothing the function can load, so it does not ship.
    const own = `${rootPath(dir)}/`;
    for (const output of Object.keys(outputs).filter((o) => o.startsWith(own))) {
      const file = output.slice(own.length);
      if (!loaded.includes(file) && !lazy.includes(file)) rmSync(join(ROOT, output));
    }
    for (const file of includedFiles(ROOT, fn.settings)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      copyFileSync(join(ROOT, file), join(dir, file));
    }
    for (const file of [...loaded, ...lazy]) {
      const inputs = outputs[rootPath(join(dir, file))]?.inputs ?? {};
      for (const { module, files } of BESIDE_MODULE)
        if (module in inputs)
          for (const beside of files)
            copyFileSync(join(ROOT, beside), join(dir, dirname(file), basename(beside)));
      for (const w of WORKERS)
        if (w.module in inputs) copyFileSync(join(workers, w.file), join(dir, dirname(file), w.file));
    }
    writeFileSync(join(dir, ".vc-config.json"), `${JSON.stringify(vcConfig(ROOT, fn), null, 2)}\n`);
  }
  rmSync(workers, { recursive: true, force: true });
  if (problems.length) throw new Error(`build refused:\n  ${problems.join("\n  ")}`);

  mkdirSync(join(OUT, "static"), { recursive: true });
  if (existsSync(join(ROOT, "public")))
    cpSync(join(ROOT, "public"), join(OUT, "static"), { recursive: true });
  const config = outputConfig(vercel, process.env.NOW_BUILDER === "1");
  writeFileSync(join(OUT, "config.json"), `${JSON.stringify(config, null, 2)}\n`);

  for (const fn of functions) {
    const dir = join(OUT, "functions", fn.dir);
    const { loaded, lazy } = reached.get(fn)!;
    const kb = (files: string[]) => files.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0) / 1024;
    const chunks = lazy.length ? ` (+ ${kb(lazy).toFixed(0)} KB loaded by dynamic import)` : "";
    console.log(`  ${fn.route.path.padEnd(52)} ${kb(loaded).toFixed(0).padStart(6)} KB${chunks}`);
  }
  console.log(
    `build: ${functions.length} functions and static/ in ${relative(ROOT, OUT) || OUT} (${Math.round(performance.now() - started)} ms)`,
  );
}

/** The output files `file` imports, named (as `file` is) relative to the function's directory `dir`. */
function outputImports(outputs: Metafile["outputs"], dir: string, file: string): ModuleImport[] {
  return (outputs[rootPath(join(dir, file))]?.imports ?? [])
    .filter((imp) => !imp.external)
    .map((imp) => ({ path: relative(dir, join(ROOT, imp.path)).split(sep).join("/"), kind: imp.kind }));
}

const rootPath = (file: string) => relative(ROOT, file).split(sep).join("/");

/**
 * What a function may not hold or leave to run-time resolution. Its files are the handler and the chunks it loads
 * (`loaded`) or loads by dynamic import (`lazy`): a read function may not reach the sync's packages or the
 * signature check's WebAssembly at all, the publishing function only through a dynamic import (what its POST
 * loads), and every chunk must lie inside the function's own directory.
 */
function check(
  fn: OutputFunction,
  outputs: Metafile["outputs"],
  dir: string,
  loaded: string[],
  lazy: string[],
): string[] {
  if (!outputs[rootPath(join(dir, HANDLER))]) return [`${fn.route.path}: esbuild wrote no ${HANDLER}`];
  const problems: string[] = [];
  const syncOnly = fn.access === "restricted" ? [] : SYNC_ONLY;
  for (const [files, banned] of [
    [loaded, [...NEVER, ...syncOnly, ...VERIFIER_ONLY]],
    [lazy, fn.publishes ? NEVER : [...NEVER, ...syncOnly, ...VERIFIER_ONLY]],
  ] as const) {
    for (const file of files) {
      if (file.startsWith("../")) problems.push(`${fn.route.path} imports ${file}, outside its directory`);
      const out = outputs[rootPath(join(dir, file))];
      if (!out) continue;
      const inputs = Object.keys(out.inputs);
      for (const bad of banned)
        if (inputs.some((i) => i.includes(bad)))
          problems.push(`${fn.route.path} ${files === lazy ? "loads (dynamic import)" : "bundles"} ${bad}`);
      for (const imp of out.imports) {
        const builtin = imp.path.startsWith("node:") || builtinModules.includes(imp.path);
        if (imp.external && !builtin && !OPTIONAL_PEERS.includes(imp.path)) {
          problems.push(`${fn.route.path} resolves ${imp.path} at run time`);
        }
      }
    }
  }
  return problems;
}

await main();
