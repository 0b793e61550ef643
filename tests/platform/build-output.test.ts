import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportColumns } from "../../lib/exports/columns.js";
import { PARQUET_WORKER_FILE } from "../../lib/exports/thread.js";
import {
  BESIDE_MODULE,
  buildInto,
  FUNCTION_NODE_OPTIONS,
  functionModules,
  HANDLER,
  node24Binary,
  OPTIONAL_PEERS,
  outputFunctions,
  readVercelJson,
} from "../../scripts/build-output.js";
import { builtOutputCopy } from "../../scripts/vercel-output/emulate.js";
import { ROOT } from "../helpers/app.js";
import { apiRoutes } from "../helpers/routes.js";
import { adminQuery, usingPostgres, withDatabase } from "../helpers/test-db.js";

/**
 * What ships (.vercel/output; in CI, what the real `vercel build` wrote): only public/ as static files, one bundled
 * function per api/ file (its entry file, and for the publishing function the chunks it imports and the
 * WebAssembly its verifier reads) with nothing beside it but what its vercel.json `includeFiles` names, the Node 24
 * runtime, and vercel.json's crons.
 */
let output: ReturnType<typeof builtOutputCopy>;
beforeAll(() => {
  output = builtOutputCopy();
});
afterAll(() => output.remove());

/** Every file under dir, as a /-separated path relative to it. */
const walk = (dir: string, top = dir): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full, top) : [relative(top, full).split(sep).join("/")];
  });

/**
 * The files the assets functions ship besides their bundles: Leaflet, MapLibre GL JS, topojson-client and Natural
 * Earth's outlines (world-atlas) for the pages, Swagger UI for /docs, GraphiQL for /graphql — each only the files it
 * serves. Every other function ships its bundle alone.
 */
const SHIPPED: Record<string, string[]> = {
  "/api/docs/assets/[file]": [
    "node_modules/swagger-ui-dist/package.json",
    "node_modules/swagger-ui-dist/swagger-ui-bundle.js",
    "node_modules/swagger-ui-dist/swagger-ui.css",
  ],
  "/api/ogc/assets/[file]": [
    "node_modules/leaflet/dist/leaflet.css",
    "node_modules/leaflet/dist/leaflet.js",
    "node_modules/leaflet/package.json",
    "node_modules/maplibre-gl/dist/maplibre-gl-worker.mjs",
    "node_modules/maplibre-gl/dist/maplibre-gl.css",
    "node_modules/maplibre-gl/dist/maplibre-gl.mjs",
    "node_modules/maplibre-gl/package.json",
    "node_modules/topojson-client/dist/topojson-client.min.js",
    "node_modules/topojson-client/package.json",
    "node_modules/world-atlas/countries-110m.json",
    "node_modules/world-atlas/countries-50m.json",
    "node_modules/world-atlas/package.json",
  ],
  // The signature check's libsecp256k1 (tiny-secp256k1's WebAssembly), beside the chunk of the verifier that reads it.
  "/api/v0/location-records": ["chunks/secp256k1.wasm"],
  // GraphiQL's browser build and the React build it runs on, for /graphql.
  "/api/graphql/assets/[file]": [
    "node_modules/graphiql/graphiql.min.css",
    "node_modules/graphiql/graphiql.min.js",
    "node_modules/graphiql/package.json",
    "node_modules/react-dom/package.json",
    "node_modules/react-dom/umd/react-dom.production.min.js",
    "node_modules/react/package.json",
    "node_modules/react/umd/react.production.min.js",
  ],
};

describe("static files", () => {
  it("are public/ and nothing else: no source, no package.json, nothing from lib, db, tests, scripts or .ci", () => {
    const shipped = walk(join(output.dir, "static")).sort();
    expect(shipped).toEqual(walk(join(ROOT, "public")).sort());
    expect(shipped).toContain("robots.txt");
    for (const file of shipped) {
      expect(file).not.toMatch(
        /\.(ts|mts|cts)$|(^|\/)package(-lock)?\.json$|^(lib|db|tests|scripts|\.ci|api|bench)\//,
      );
      expect(readFileSync(join(output.dir, "static", file))).toEqual(
        readFileSync(join(ROOT, "public", file)),
      );
    }
  });
});

describe("functions", () => {
  it("one per api/ file, named by the path it serves, each its ESM entry file, the chunks it imports, and its config", async () => {
    const routes = apiRoutes().map((r) => r.route);
    const publishing = outputFunctions(ROOT)
      .filter((fn) => fn.publishes)
      .map((fn) => fn.route.path);
    const funcs = walk(join(output.dir, "functions"))
      .filter((f) => f.endsWith("/.vc-config.json"))
      .map((f) => `/${f.replace(/\.func\/\.vc-config\.json$/, "")}`)
      .sort();
    expect(funcs).toEqual(routes.map((r) => r.path).sort());
    for (const route of routes) {
      const dir = join(output.dir, "functions", `${route.path.slice(1)}.func`);
      const { loaded, lazy, external } = await functionModules(dir);
      expect(loaded, route.path).toContain(HANDLER);
      // Chunks lie in the function's own directory, and every file there is one it imports or one it names.
      const modules = [...loaded, ...lazy].sort();
      for (const file of modules) expect(file, route.path).toMatch(/^(index|chunks\/[\w.-]+)\.mjs$/);
      const files = walk(dir);
      const extra = files.filter((f) => !modules.includes(f) && f !== ".vc-config.json");
      // A module that starts the GeoParquet encoder's thread has the thread's bundle beside it.
      const workers = modules
        .filter((f) => readFileSync(join(dir, f), "utf8").includes(PARQUET_WORKER_FILE))
        .map((f) => join(dirname(f), PARQUET_WORKER_FILE).split(sep).join("/"));
      expect(extra.sort(), route.path).toEqual([...(SHIPPED[route.path] ?? []), ...workers].sort());
      // Only the publishing function is split (its verifier, loaded by a POST); every other is one bundle.
      if (!publishing.includes(route.path)) expect(modules, route.path).toEqual([HANDLER]);
      const vc = JSON.parse(readFileSync(join(dir, ".vc-config.json"), "utf8"));
      expect(vc, route.path).toMatchObject({
        runtime: "nodejs24.x",
        handler: HANDLER,
        launcherType: "Nodejs",
        maxDuration: 30,
        environment: { NODE_OPTIONS: FUNCTION_NODE_OPTIONS },
      });
      // Bundled: no package left to resolve at run time. Static imports are node: built-ins only; a dynamic
      // import() of a package is one of the optional peers, inside try/catch.
      const builtin = (s: string) => s.startsWith("node:") || builtinModules.includes(s);
      expect(
        external.filter((i) =>
          i.kind === "dynamic-import"
            ? !builtin(i.path) && !OPTIONAL_PEERS.includes(i.path)
            : !builtin(i.path),
        ),
        route.path,
      ).toEqual([]);
    }
  });

  it("the download functions, and only they, carry the GeoParquet encoder's thread, which runs on its own", async () => {
    const carriers: string[] = [];
    for (const { route } of apiRoutes()) {
      const dir = join(output.dir, "functions", `${route.path.slice(1)}.func`);
      const found = walk(dir).filter((f) => basename(f) === PARQUET_WORKER_FILE);
      if (found.length) carriers.push(route.path);
      for (const file of found) {
        // The built thread alone (nothing of the function's bundle, no package resolved at run time) encodes a file.
        const worker = new Worker(join(dir, file), {
          workerData: { columns: exportColumns(false), points: true },
        });
        try {
          const reply = await new Promise<{ bytes?: Uint8Array; error?: string }>((resolve, reject) => {
            worker.once("message", resolve);
            worker.once("error", reject);
            worker.postMessage({ op: "start", rows: 0 });
          });
          expect(Buffer.from(reply.bytes!).subarray(0, 4).toString(), route.path).toBe("PAR1");
        } finally {
          await worker.terminate();
        }
      }
    }
    expect(carriers.sort()).toEqual([
      "/api/ogc/collections/location-proof-shapes/items",
      "/api/ogc/collections/location-proofs/items",
      "/api/v0/location-proofs",
      "/api/v0/location-records",
    ]);
  });

  it("read functions carry no chain client (viem) and no H3 decoder (h3-js), sync functions do, and publishing loads them only by dynamic import; none carries node-redis", async () => {
    const publishing = outputFunctions(ROOT).filter((fn) => fn.publishes);
    const text = (dir: string, files: string[]) =>
      files.map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    // viem's errors name its version (`viem@${version}`); code that includes viem includes that template.
    const VIEM = "viem@${";
    // h3-js's error messages: locations are decoded at index time, never when read.
    const H3 = "Cell argument was not valid";
    for (const { route, access: declared } of apiRoutes()) {
      const publishes = publishing.some((fn) => fn.route.path === route.path);
      const dir = join(output.dir, "functions", `${route.path.slice(1)}.func`);
      const { loaded, lazy } = await functionModules(dir);
      const atImport = text(dir, loaded);
      const byDynamicImport = text(dir, lazy);
      if (declared === "public") {
        expect(atImport.includes(VIEM), route.path).toBe(false);
        expect(atImport.includes(H3), route.path).toBe(false);
        expect(byDynamicImport.includes(VIEM), route.path).toBe(publishes);
        expect(byDynamicImport.includes(H3), route.path).toBe(publishes);
      }
      // node-redis (REDIS_URL, local and CI only) is left out of every function: the build stubs it.
      expect(`${atImport}${byDynamicImport}`.includes("ACL_GETUSER"), route.path).toBe(false);
    }
    const sync = readFileSync(join(output.dir, "functions/api/cron/sync.func", HANDLER), "utf8");
    expect(sync.includes(VIEM)).toBe(true);
    expect(sync.includes(H3)).toBe(true);
    // The list's alias also takes off-chain publications (POST): it verifies with viem, loaded only for a POST.
    expect(publishing.map((fn) => fn.route.path)).toEqual(["/api/v0/location-records"]);
  });

  it("only the publishing function carries the signature check's WebAssembly: beside the chunk its POST loads that reads it, never loaded at import, and that chunk imports from the copy (the .wasm read and compiled)", async () => {
    const publishing = outputFunctions(ROOT).filter((fn) => fn.publishes);
    const wasm = BESIDE_MODULE.flatMap((b) => b.files).filter((f) => f.endsWith(".wasm"));
    expect(wasm).toEqual(["node_modules/tiny-secp256k1/lib/secp256k1.wasm"]);
    // The loader's call: readFileSync(path("secp256k1.wasm")), the path made from its module's import.meta.url.
    const READS = JSON.stringify(basename(wasm[0]!));
    const readers: string[] = [];
    for (const { route } of apiRoutes()) {
      const dir = join(output.dir, "functions", `${route.path.slice(1)}.func`);
      const { loaded, lazy } = await functionModules(dir);
      const reading = (files: string[]) =>
        files.filter((f) => readFileSync(join(dir, f), "utf8").includes(READS));
      expect(reading(loaded), route.path).toEqual([]);
      const wasmFiles = walk(dir).filter((f) => f.endsWith(".wasm"));
      if (!publishing.some((fn) => fn.route.path === route.path)) {
        expect(reading(lazy), route.path).toEqual([]);
        expect(wasmFiles, route.path).toEqual([]);
        continue;
      }
      const [reader, ...more] = reading(lazy);
      expect(more, route.path).toEqual([]);
      expect(reader, route.path).toBeDefined();
      expect(wasmFiles).toEqual([`${dirname(reader!)}/${basename(wasm[0]!)}`]);
      expect(readFileSync(join(dir, wasmFiles[0]!)).equals(readFileSync(join(ROOT, wasm[0]!)))).toBe(true);
      readers.push(join(dir, reader!));
    }
    expect(readers).toHaveLength(1);
    // Imported in a fresh process on the production Node where there is one, from the copy outside the repository:
    // the module compiles the WebAssembly as it loads, so a missing or misplaced .wasm fails here.
    const node = node24Binary(ROOT) ?? process.execPath;
    const out = execFileSync(
      node,
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(pathToFileURL(readers[0]!).href)}); console.log(Object.keys(m).length > 0)`,
      ],
      { env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent" }, encoding: "utf8" },
    );
    expect(out.trim()).toBe("true");
  });

  it("every [param] file is the destination of a vercel.json rewrite (nothing else reaches it when deployed)", () => {
    const destinations = (readVercelJson(ROOT).rewrites ?? []).map((r) => r.destination.split("?")[0]);
    for (const { route } of apiRoutes().filter((r) => r.route.params.length > 0)) {
      expect(destinations, route.path).toContain(route.path);
    }
  });
});

describe("config.json", () => {
  it("routes the filesystem first, then vercel.json's rewrites, and carries its crons", () => {
    const config = JSON.parse(readFileSync(join(output.dir, "config.json"), "utf8"));
    const vercel = readVercelJson(ROOT);
    expect(config.version).toBe(3);
    expect(config.routes[0]).toEqual({ handle: "filesystem" });
    expect(config.routes).toHaveLength(1 + (vercel.rewrites?.length ?? 0));
    expect(config.crons).toEqual(vercel.crons);
  });
});

describe.skipIf(!usingPostgres())("migrations on deploy", () => {
  it("a production build with MIGRATE_ON_DEPLOY=1 migrates DATABASE_URL first; a preview build does not", async () => {
    const server = process.env.DATABASE_URL!;
    const name = `lpqs_deploy_${Date.now().toString(36)}`;
    await adminQuery(server, `create database ${name}`);
    const url = withDatabase(server, name);
    const tables = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (
          await client.query("select count(*)::int as n from pg_tables where tablename = 'location_proofs'")
        ).rows[0].n as number;
      } finally {
        await client.end();
      }
    };
    const buildWith = (env: Record<string, string>) => {
      const out = mkdtempSync(join(tmpdir(), "deploy-build-"));
      try {
        buildInto(ROOT, out, { ...env, DATABASE_URL: url, MIGRATE_ON_DEPLOY: "1" });
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    };
    try {
      buildWith({ VERCEL_ENV: "preview" });
      expect(await tables()).toBe(0);
      buildWith({ VERCEL_ENV: "production" });
      expect(await tables()).toBe(1);
    } finally {
      await adminQuery(server, `drop database if exists ${name} with (force)`);
    }
  });
});
