// What the pages' classic scripts find on `window`, loaded before them by the page's own script tags
// (lib/html/layout.ts): Leaflet, and topojson-client, of which map.js and tile-map.mjs use one function.

interface Window {
  L?: typeof import("leaflet");
  topojson?: {
    feature(
      topology: { objects: Record<string, unknown> },
      object: unknown,
    ): import("geojson").FeatureCollection;
  };
}
