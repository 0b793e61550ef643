import { getConfig } from "../config.js";
import { clientFile } from "../html/client-files.js";
import { type Asset, assetServer, CSS_TYPE, fromPackage, JS_TYPE } from "../http/static-assets.js";

/**
 * The files the HTML pages load, all from our own origin (no CDN): Leaflet, topojson-client and Natural Earth's
 * country outlines (world-atlas) from their npm packages, read at run time — vercel.json's `includeFiles` for this
 * function alone ships them next to its bundle (scripts/build.ts), so no other function grows — and our own CSS and
 * scripts (lib/html/client/). A fixed allow-list: the file name never reaches the file system.
 */

const ASSETS: Record<string, Asset> = {
  "leaflet.js": fromPackage(JS_TYPE, "leaflet/dist/leaflet.js"),
  "leaflet.css": fromPackage(CSS_TYPE, "leaflet/dist/leaflet.css"),
  "topojson-client.js": fromPackage(JS_TYPE, "topojson-client/dist/topojson-client.min.js"),
  // Natural Earth 1:110m (small) for the world view, 1:50m (larger) once a map is zoomed in (map.js).
  "countries-110m.json": fromPackage("application/json", "world-atlas/countries-110m.json"),
  "countries-50m.json": fromPackage("application/json", "world-atlas/countries-50m.json"),
  // MapLibre GL JS for the map of every proof (its vector tiles): the module, its worker and its styles.
  "maplibre-gl.mjs": fromPackage(JS_TYPE, "maplibre-gl/dist/maplibre-gl.mjs"),
  "maplibre-gl-worker.mjs": fromPackage(JS_TYPE, "maplibre-gl/dist/maplibre-gl-worker.mjs"),
  "maplibre-gl.css": fromPackage(CSS_TYPE, "maplibre-gl/dist/maplibre-gl.css"),
  // Our own, bundled from lib/html/client/ (lib/html/client-files.ts).
  "map.js": { type: JS_TYPE, load: () => clientFile("map.js") },
  "tile-map.mjs": { type: JS_TYPE, load: () => clientFile("tile-map.mjs") },
  "site.js": { type: JS_TYPE, load: () => clientFile("site.js") },
  "site.css": { type: CSS_TYPE, load: () => clientFile("site.css") },
};

const serve = assetServer(ASSETS);

/**
 * A worker runs under the policy of its own script's response, not the page's: MapLibre's worker fetches the tiles,
 * so its script is sent with a policy that lets it connect to our origin (and to the raster tiles' one origin when
 * BASEMAP_TILE_URL is set), and nothing else. Every other file gets the default policy (lib/http/security-headers.ts).
 */
export async function assetResponse(file: string): Promise<Response> {
  const response = await serve(file);
  if (file === "maplibre-gl-worker.mjs") {
    const tiles = getConfig().basemapTiles?.origin;
    response.headers.set(
      "content-security-policy",
      `default-src 'none'; connect-src 'self'${tiles ? ` ${tiles}` : ""}; frame-ancestors 'none'`,
    );
  }
  return response;
}
