import { MAP_JS, SITE_CSS, SITE_JS } from "../html/assets.js";
import { type Asset, assetServer, CSS_TYPE, fromPackage, JS_TYPE } from "../http/static-assets.js";

/**
 * The files the HTML pages load, all from our own origin (no CDN): Leaflet, topojson-client and Natural Earth's
 * country outlines (world-atlas) from their npm packages, read at run time — vercel.json's `includeFiles` for this
 * function alone ships them next to its bundle (scripts/build.ts), so no other function grows — and our own CSS and
 * scripts. A fixed allow-list: the file name never reaches the file system.
 */

const ASSETS: Record<string, Asset> = {
  "leaflet.js": fromPackage(JS_TYPE, "leaflet/dist/leaflet.js"),
  "leaflet.css": fromPackage(CSS_TYPE, "leaflet/dist/leaflet.css"),
  "topojson-client.js": fromPackage(JS_TYPE, "topojson-client/dist/topojson-client.min.js"),
  // Natural Earth 1:110m (108 KB) for the world view, 1:50m (756 KB) once a map is zoomed in (map.js).
  "countries-110m.json": fromPackage("application/json", "world-atlas/countries-110m.json"),
  "countries-50m.json": fromPackage("application/json", "world-atlas/countries-50m.json"),
  "map.js": { type: JS_TYPE, load: async () => MAP_JS },
  "site.js": { type: JS_TYPE, load: async () => SITE_JS },
  "site.css": { type: CSS_TYPE, load: async () => SITE_CSS },
};

export const assetResponse = assetServer(ASSETS);
