import type { Feature, FeatureCollection } from "geojson";
import type * as Leaflet from "leaflet";
import { unwrapAll } from "./outline-rings.js";
import { escapeHtml, proofPopup } from "./popup.js";

/*
 * The map of a page of features (map.js, Leaflet): Natural Earth country outlines (world-atlas TopoJSON from our own
 * origin, turned into GeoJSON by topojson-client; 1:110m at world scale, 1:50m once zoomed in) under the features,
 * and the configured raster tiles (map-config.tiles) above the outlines when there are any, so the outlines remain
 * wherever tiles cannot load. Points are red circle markers, shapes blue; a click opens a compact popup linking to
 * the proof's page, at most as large as the map (it scrolls inside). Data comes from the page's JSON blocks
 * "features" and "map-config" (lib/html/layout.ts, mapSection).
 */

type MapConfig = {
  assets: string;
  itemPath?: string;
  tiles?: { url: string; attribution: string };
  /** west, south, east, north; west > east crosses the antimeridian */
  extent?: [number, number, number, number];
};

const el = document.getElementById("map");
const dataEl = document.getElementById("features");
const configEl = document.getElementById("map-config");
if (el && dataEl && configEl && window.L) {
  start(
    window.L,
    el,
    JSON.parse(dataEl.textContent ?? "") as FeatureCollection,
    JSON.parse(configEl.textContent ?? "") as MapConfig,
  );
}

function start(L: NonNullable<Window["L"]>, el: HTMLElement, data: FeatureCollection, config: MapConfig) {
  const map = L.map(el, { worldCopyJump: true, zoomSnap: 0.25, minZoom: 0, maxZoom: 18 });
  map.attributionControl.setPrefix(false);

  // Basemap: outlines in their own pane, above the tiles' pane (200) when there are no tiles, below it otherwise.
  const pane = map.createPane("basemap");
  pane.style.zIndex = config.tiles ? "150" : "250";
  pane.style.pointerEvents = "none";
  const outlines = L.layerGroup().addTo(map);
  const renderer = L.svg({ pane: "basemap", padding: 0.5 });
  let loaded: string | null = null;
  const drawOutlines = (file: string) => {
    const topojson = window.topojson;
    if (loaded === file || !topojson) return;
    loaded = file;
    fetch(config.assets + file)
      .then((response) => {
        if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
        return response.json();
      })
      .then((topology) => {
        if (loaded !== file) return;
        const countries = unwrapAll(topojson.feature(topology, topology.objects.countries));
        outlines.clearLayers();
        L.geoJSON(countries, {
          pane: "basemap",
          renderer,
          interactive: false,
          style: {
            className: "country",
            color: "#a59f92",
            weight: 0.8,
            fillColor: "#f4f1ea",
            fillOpacity: 1,
          },
          // Leaflet's GeoJSON layer passes its options on to each outline's path; its types do not say so.
        } as Leaflet.GeoJSONOptions & Leaflet.PathOptions).addTo(outlines);
        el.setAttribute("data-basemap", file);
      })
      .catch((error) => el.setAttribute("data-basemap-error", String(error.message || error)));
  };
  map.attributionControl.addAttribution("Outlines: Natural Earth");
  if (config.tiles) {
    L.tileLayer(config.tiles.url, { attribution: escapeHtml(config.tiles.attribution), maxZoom: 19 }).addTo(
      map,
    );
  }

  const isPoint = (f: Feature) =>
    f.geometry && (f.geometry.type === "Point" || f.geometry.type === "MultiPoint");
  const POINT = {
    radius: 6,
    color: "#ffffff",
    weight: 1.5,
    fillColor: "#d32f2f",
    fillOpacity: 0.9,
    className: "feature-marker",
  };
  const SHAPE = {
    color: "#1b5fae",
    weight: 2,
    fillColor: "#1b5fae",
    fillOpacity: 0.2,
    className: "feature-marker",
  };

  const popup = (f: Feature) => {
    const p = f.properties || {};
    return proofPopup(
      p,
      Boolean(p.revoked),
      config.itemPath && f.id
        ? { href: `${config.itemPath + encodeURIComponent(f.id)}?f=html`, title: String(f.id) }
        : undefined,
    );
  };
  // The popup never outgrows the map: its size follows the map's, and its content scrolls inside.
  map.on("popupopen", (event) => {
    const size = map.getSize();
    const options = event.popup.options;
    options.maxWidth = Math.max(160, Math.min(300, size.x - 60));
    options.minWidth = Math.min(200, options.maxWidth);
    options.maxHeight = Math.max(60, size.y - 90);
    event.popup.update();
  });

  const layer = L.geoJSON(data, {
    filter: (f) => f.geometry !== null,
    pointToLayer: (_f, latlng) => L.circleMarker(latlng, POINT),
    style: (f) => (f && isPoint(f) ? POINT : SHAPE),
    onEachFeature: (f, l) => {
      l.bindPopup(() => popup(f), { className: "proof-popup", autoPanPadding: [10, 10] });
    },
  }).addTo(map);

  let bounds = layer.getBounds();
  if (config.extent) {
    const [w, s, east, n] = config.extent;
    // West > east crosses the antimeridian: draw it as one box past 180.
    const e = east < w ? east + 360 : east;
    const box = L.rectangle(
      [
        [s, w],
        [n, e],
      ],
      {
        color: "#1b5fae",
        weight: 2,
        dashArray: "6 4",
        fillOpacity: 0.08,
        interactive: false,
        className: "extent-box",
      },
    ).addTo(map);
    bounds = box.getBounds();
  }
  // Without tiles the outlines are all there is to see: stop where a country is still recognisable.
  const maxZoom = config.tiles ? 14 : 5;
  if (bounds.isValid()) map.fitBounds(bounds, { padding: [24, 24], maxZoom });
  else
    map.fitBounds([
      [-55, -170],
      [75, 170],
    ]);
  drawOutlines(map.getZoom() >= 4 ? "countries-50m.json" : "countries-110m.json");
  map.on("zoomend", () => {
    if (map.getZoom() >= 4) drawOutlines("countries-50m.json");
  });
  el.setAttribute("data-feature-count", String(layer.getLayers().length));
}
