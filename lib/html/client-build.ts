import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import type { ClientFileName } from "./client-files.js";

/*
 * The pages' own scripts and styles (lib/html/client/) bundled by esbuild into the files the pages load: at build
 * time by scripts/build.ts, which puts the texts into the assets function (so it reads no file), and on first use
 * in the dev server and the tests (lib/html/client-files.ts). Never part of a deployed function: it runs esbuild.
 */

const CLIENT = fileURLToPath(new URL("./client/", import.meta.url));

/** Each served file, from its source: site.js and map.js are classic scripts, tile-map.mjs an ES module. */
const SOURCES: Record<ClientFileName, { entry: string; format?: "iife" | "esm" }> = {
  "site.js": { entry: "site.ts", format: "iife" },
  "map.js": { entry: "map.ts", format: "iife" },
  "tile-map.mjs": { entry: "tile-map.ts", format: "esm" },
  "site.css": { entry: "site.css" },
};

/** MapLibre GL JS is served beside tile-map.mjs from its npm package (lib/ogc/asset-files.ts), not bundled into it. */
const maplibreBeside: Plugin = {
  name: "maplibre-beside",
  setup(b) {
    b.onResolve({ filter: /^maplibre-gl$/ }, () => ({ path: "./maplibre-gl.mjs", external: true }));
  },
};

async function bundle(name: ClientFileName): Promise<string> {
  const { entry, format } = SOURCES[name];
  const result = await build({
    absWorkingDir: CLIENT,
    entryPoints: [entry],
    bundle: true,
    write: false,
    ...(format ? { format } : {}),
    platform: "browser",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    minify: true,
    legalComments: "none",
    plugins: [maplibreBeside],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** Every file the pages load from lib/html/client/, by its served name. */
export async function bundleClientFiles(): Promise<Record<ClientFileName, string>> {
  const names = Object.keys(SOURCES) as ClientFileName[];
  const texts = await Promise.all(names.map(bundle));
  return Object.fromEntries(names.map((name, i) => [name, texts[i]!])) as Record<ClientFileName, string>;
}
