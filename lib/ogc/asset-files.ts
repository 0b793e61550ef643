import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { MAP_JS, SITE_CSS, SITE_JS } from "../html/assets.js";
import { notFound } from "../http/errors.js";
import { textResponse } from "../http/respond.js";

/**
 * The files the HTML pages load, all from our own origin (no CDN): Leaflet, topojson-client and Natural Earth's
 * country outlines (world-atlas) from their npm packages, read at run time — vercel.json's `includeFiles` for this
 * function alone ships them next to its bundle (scripts/build.ts), so no other function grows — and our own CSS and
 * scripts. A fixed allow-list: the file name never reaches the file system.
 */
const require = createRequire(import.meta.url);

type Asset = { type: string; load: () => Promise<string> };

const JS = "text/javascript; charset=utf-8";
const fromPackage = (type: string, path: string): Asset => ({
  type,
  load: () => readFile(require.resolve(path), "utf8"),
});

const ASSETS: Record<string, Asset> = {
  "leaflet.js": fromPackage(JS, "leaflet/dist/leaflet.js"),
  "leaflet.css": fromPackage("text/css; charset=utf-8", "leaflet/dist/leaflet.css"),
  "topojson-client.js": fromPackage(JS, "topojson-client/dist/topojson-client.min.js"),
  // Natural Earth 1:110m (108 KB) for the world view, 1:50m (756 KB) once a map is zoomed in (map.js).
  "countries-110m.json": fromPackage("application/json", "world-atlas/countries-110m.json"),
  "countries-50m.json": fromPackage("application/json", "world-atlas/countries-50m.json"),
  "map.js": { type: JS, load: async () => MAP_JS },
  "site.js": { type: JS, load: async () => SITE_JS },
  "site.css": { type: "text/css; charset=utf-8", load: async () => SITE_CSS },
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
    // Versioned with the packages: a day in the browser, then revalidated by ETag.
    headers: { "cache-control": "public, max-age=86400" },
  });
}
