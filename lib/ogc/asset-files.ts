import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { notFound } from "../http/errors.js";
import { textResponse } from "../http/respond.js";
import { MAP_JS, OGC_CSS } from "./html/assets.js";

/**
 * The files the HTML pages load, all from our own origin (no CDN): Leaflet from its npm package, read at run time
 * (vercel.json ships leaflet.js and leaflet.css through `includeFiles`, under the single functions key for all of
 * api/ so that no two function globs overlap; the two files are ~160 KB), and our own CSS and map script.
 * A fixed allow-list: the file name never reaches the file system.
 */
const require = createRequire(import.meta.url);

type Asset = { type: string; load: () => Promise<string> };

const ASSETS: Record<string, Asset> = {
  "leaflet.js": {
    type: "text/javascript; charset=utf-8",
    load: () => readFile(require.resolve("leaflet/dist/leaflet.js"), "utf8"),
  },
  "leaflet.css": {
    type: "text/css; charset=utf-8",
    load: () => readFile(require.resolve("leaflet/dist/leaflet.css"), "utf8"),
  },
  "map.js": { type: "text/javascript; charset=utf-8", load: async () => MAP_JS },
  "ogc.css": { type: "text/css; charset=utf-8", load: async () => OGC_CSS },
};

const cache = new Map<string, Promise<string>>();

export async function assetResponse(file: string): Promise<Response> {
  const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
  // The requested name is not echoed: it is attacker-chosen text.
  if (!asset) throw notFound(`No such asset. Available: ${Object.keys(ASSETS).join(", ")}`);
  let body = cache.get(file);
  if (!body) {
    body = asset.load();
    cache.set(file, body);
    body.catch(() => cache.delete(file));
  }
  return textResponse(await body, {
    contentType: asset.type,
    // Versioned with the package: a day in the browser, then revalidated by ETag.
    headers: { "cache-control": "public, max-age=86400" },
  });
}
