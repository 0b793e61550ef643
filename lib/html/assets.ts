/**
 * Our own static files for the HTML pages (plain browser CSS and JavaScript, kept as strings so they deploy inside
 * the assets function with no file lookup). Leaflet, topojson-client and the Natural Earth outlines are read from
 * their npm packages (lib/ogc/asset-files.ts). Only the assets function imports this module.
 */
export const SITE_CSS = `
:root { --ink: #1c2430; --muted: #5b6572; --line: #e1e5ea; --soft: #f5f7f9; --accent: #1b5fae; --head: #13233a;
  --red: #d32f2f; color-scheme: light; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; display: flex; flex-direction: column; min-height: 100vh; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
  color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:hover { color: #0d3f7a; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.inner, main { max-width: 1120px; margin: 0 auto; padding-left: 1rem; padding-right: 1rem; }
.site-header { background: var(--head); color: #fff; }
.site-header .inner { display: flex; flex-wrap: wrap; align-items: center; gap: .35rem 1.5rem; padding-top: .7rem;
  padding-bottom: .7rem; }
.brand { color: #fff; font-weight: 650; font-size: 1.05rem; text-decoration: none; }
.brand:hover { color: #fff; }
.site-nav { display: flex; flex-wrap: wrap; gap: .2rem 1.1rem; }
.site-nav a { color: #cfdcee; text-decoration: none; border-bottom: 2px solid transparent; padding: .1rem 0; }
.site-nav a:hover, .site-nav a[aria-current] { color: #fff; border-bottom-color: #f5a524; }
main { width: 100%; flex: 1 0 auto; padding-top: 1rem; padding-bottom: 3rem; }
.crumbs { font-size: 13px; color: var(--muted); display: flex; flex-wrap: wrap; gap: .3rem; }
.crumbs a { color: var(--muted); }
h1 { font-size: 1.65rem; line-height: 1.25; margin: .35rem 0 .35rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.8rem 0 .5rem; }
.lead { color: var(--muted); max-width: 75ch; margin: 0 0 1rem; }
.muted { color: var(--muted); }
.empty { color: var(--muted); padding: 1rem 0; }
.map { height: 480px; margin: 1rem 0; border: 1px solid var(--line); border-radius: 8px; z-index: 0; }
.map.leaflet-container { background: #cfe1ef; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin: 1rem 0; }
.button, button { display: inline-block; font: inherit; font-size: 14px; line-height: 1.2; padding: .5rem .85rem;
  border: 1px solid #c5ced8; border-radius: 6px; background: #fff; color: var(--ink); text-decoration: none;
  cursor: pointer; }
.button:hover, button:hover { background: var(--soft); color: var(--ink); }
.button.primary { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
.button.primary:hover { background: #144c8d; color: #fff; }
button.copy { font-size: 12px; padding: .1rem .4rem; margin-left: .4rem; vertical-align: 1px; color: var(--muted);
  border-color: var(--line); }
.facets { list-style: none; padding: 0; margin: .5rem 0; font-size: 14px; display: grid; gap: .3rem; }
.facets a { margin-right: .5rem; white-space: nowrap; }
.facets a.on { font-weight: 600; color: var(--ink); text-decoration: none; }
.pager { display: flex; flex-wrap: wrap; align-items: center; gap: .6rem 1rem; margin: .75rem 0; }
.pager .count { font-weight: 600; }
.pager .pages { display: flex; gap: .5rem; }
.pager .page-size { margin-left: auto; font-size: 14px; color: var(--muted); }
.pager select { font: inherit; padding: .3rem; border-radius: 6px; border: 1px solid #c5ced8; background: #fff; }
html.js .page-size button { display: none; }
.table-wrap { max-width: 100%; overflow-x: auto; }
table.data { border-collapse: collapse; width: 100%; font-size: 14px; }
table.data th, table.data td { text-align: left; vertical-align: top; padding: .5rem .6rem;
  border-bottom: 1px solid var(--line); }
table.data thead th { font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .03em;
  color: var(--muted); background: var(--soft); white-space: nowrap; }
table.data tbody tr:hover { background: #fafbfc; }
td.nowrap { white-space: nowrap; }
td.memo { min-width: 12rem; }
tr.revoked td { color: var(--muted); }
.badge { display: inline-block; font-size: 12px; padding: 0 .45rem; border-radius: 999px; background: var(--soft);
  border: 1px solid var(--line); }
.badge-revoked { background: #fdecea; border-color: #f5c2bd; color: #8a1c14; }
table.props { table-layout: fixed; }
table.props th { width: 13rem; font-weight: 600; color: var(--muted); font-size: 13px; }
table.props td { overflow-wrap: anywhere; }
a.uid { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 1rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 320px), 1fr)); gap: 1rem;
  margin: 1rem 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.1rem; background: #fff; }
.card h2, .card h3 { margin: 0 0 .4rem; font-size: 1.1rem; }
.card p { margin: .3rem 0; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 140px), 1fr)); gap: .75rem;
  margin: 1rem 0 1.25rem; }
.stat { border: 1px solid var(--line); border-radius: 8px; padding: .7rem .9rem; background: var(--soft); }
.stat b { display: block; font-size: 1.5rem; line-height: 1.2; white-space: nowrap; }
.stat span { color: var(--muted); font-size: 13px; }
ul.links, ul.plain { padding-left: 1.1rem; }
ul.links li, ul.plain li { margin: .2rem 0; }
ul.endpoints { list-style: none; padding: 0; }
ul.endpoints li { padding: .45rem 0; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap;
  gap: .2rem 1rem; }
ul.endpoints li a { min-width: 16rem; }
.error-page .status { font-size: 13px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.error-page .message { font-size: 1.05rem; padding: .8rem 1rem; border-left: 4px solid var(--red);
  background: #fdf3f2; overflow-wrap: anywhere; }
.site-footer { border-top: 1px solid var(--line); background: var(--soft); color: var(--muted); font-size: 13px; }
.site-footer .inner { padding-top: 1rem; padding-bottom: 1.5rem; }
.site-footer p { margin: .25rem 0; }
.site-footer a { color: var(--muted); }
/* The map popup: compact, and it scrolls inside the map (map.js sets its maximum height from the map's). */
.leaflet-container { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.proof-popup .leaflet-popup-content { margin: 10px 12px; }
.proof-popup .title { font-weight: 600; font-size: 14px; margin: 0 1rem .35rem 0; overflow-wrap: anywhere; }
.proof-popup dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .7rem; margin: 0 0 .4rem; }
.proof-popup dt { color: var(--muted); }
.proof-popup dd { margin: 0; overflow-wrap: anywhere; }
.proof-popup a.more { font-weight: 600; }
.proof-popup .maplibregl-popup-content { padding: 10px 12px; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.map.maplibregl-map { background: #cfe1ef; }
/* The map's filters: one row of choices per filter, each a link that keeps the page's other parameters. */
.map-filters { display: flex; flex-wrap: wrap; gap: .35rem 1.5rem; margin: .75rem 0 0; font-size: 14px; }
.map-filters .filter { display: flex; flex-wrap: wrap; align-items: center; gap: .3rem; }
.map-filters .label { color: var(--muted); margin-right: .2rem; }
.map-filters a { padding: .2rem .6rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none;
  color: var(--ink); background: #fff; }
.map-filters a:hover { background: var(--soft); }
.map-filters a[aria-current] { background: var(--accent); border-color: var(--accent); color: #fff; }
@media (max-width: 640px) {
  body { font-size: 15px; }
  h1 { font-size: 1.35rem; }
  .stat b { font-size: 1.25rem; }
  .map { height: 340px; }
  .pager .page-size { margin-left: 0; }
  table.proofs thead { display: none; }
  table.proofs, table.proofs tbody, table.proofs tr, table.proofs td { display: block; width: 100%; }
  table.proofs tr { border: 1px solid var(--line); border-radius: 8px; margin: 0 0 .6rem; padding: .35rem .7rem; }
  table.proofs td { display: flex; gap: .75rem; border: 0; padding: .2rem 0; white-space: normal; min-width: 0; }
  table.proofs td::before { content: attr(data-label); flex: 0 0 6.8rem; color: var(--muted); font-size: 12px;
    text-transform: uppercase; letter-spacing: .03em; padding-top: .1rem; }
  table.proofs td .v { min-width: 0; overflow-wrap: anywhere; }
  table.props, table.props tbody, table.props tr, table.props th, table.props td { display: block; width: 100%; }
  table.props th { border: 0; padding: .5rem 0 0; }
  table.props td { padding: 0 0 .5rem; }
  dl.facts { grid-template-columns: 1fr; gap: 0; }
  dl.facts dd { margin-bottom: .5rem; }
}
`;

/** Every page: copy buttons (shown only where script runs) and the page-size selector that applies on change. */
export const SITE_JS = `"use strict";
(function () {
  document.documentElement.className += " js";
  function each(selector, fn) { Array.prototype.forEach.call(document.querySelectorAll(selector), fn); }
  each("button[data-copy]", function (button) {
    if (!navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      }, function () {});
    });
  });
  each("form.page-size select", function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
})();
`;

/**
 * Natural Earth's rings that cross the antimeridian (Fiji, Russia, Antarctica) jump between +180 and -180, which a
 * flat map draws as a line across the world: both maps unwrap their longitudes so each ring stays continuous (past
 * 180 where needed), and close a ring that goes round a pole along that pole. Plain ES5, inserted into both scripts.
 */
const OUTLINE_RINGS_JS = `function unwrap(ring) {
  var out = [], offset = 0;
  for (var i = 0; i < ring.length; i++) {
    if (i > 0) {
      var step = ring[i][0] - ring[i - 1][0];
      if (step > 180) offset -= 360; else if (step < -180) offset += 360;
    }
    out.push([ring[i][0] + offset, ring[i][1]]);
  }
  if (offset !== 0) {
    var first = out[0], last = out[out.length - 1], pole = first[1] < 0 ? -90 : 90;
    out.push([last[0], pole], [first[0], pole], first);
  }
  return out;
}
function unwrapAll(collection) {
  collection.features.forEach(function (f) {
    var g = f.geometry;
    var polygons = !g ? [] : g.type === "Polygon" ? [g.coordinates] : g.type === "MultiPolygon" ? g.coordinates : [];
    polygons.forEach(function (rings) { for (var i = 0; i < rings.length; i++) rings[i] = unwrap(rings[i]); });
  });
  return collection;
}`;

/**
 * The map: Natural Earth country outlines (world-atlas TopoJSON from our own origin, turned into GeoJSON by
 * topojson-client; 1:110m at world scale, 1:50m once zoomed in) under the features, and the configured raster tiles
 * (map-config.tiles) above the outlines when there are any, so the outlines remain wherever tiles cannot load.
 * Points are red circle markers, shapes blue; a click opens a compact popup linking to the proof's page, at most as
 * large as the map (it scrolls inside). Data comes from the page's JSON blocks "features" and "map-config".
 */
export const MAP_JS = `"use strict";
(function () {
  var el = document.getElementById("map");
  var dataEl = document.getElementById("features");
  var configEl = document.getElementById("map-config");
  if (!el || !dataEl || !configEl || !window.L) return;
  var data = JSON.parse(dataEl.textContent);
  var config = JSON.parse(configEl.textContent);
  var map = L.map(el, { worldCopyJump: true, zoomSnap: 0.25, minZoom: 0, maxZoom: 18 });
  map.attributionControl.setPrefix(false);

  function escape(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // Basemap: outlines in their own pane, above the tiles' pane (200) when there are no tiles, below it otherwise.
  map.createPane("basemap");
  map.getPane("basemap").style.zIndex = config.tiles ? 150 : 250;
  map.getPane("basemap").style.pointerEvents = "none";
  var outlines = L.layerGroup().addTo(map);
  var renderer = L.svg({ pane: "basemap", padding: 0.5 });
  var loaded = null;
  ${OUTLINE_RINGS_JS}
  function drawOutlines(file) {
    if (loaded === file || !window.topojson) return;
    loaded = file;
    fetch(config.assets + file).then(function (response) {
      if (!response.ok) throw new Error(file + ": HTTP " + response.status);
      return response.json();
    }).then(function (topology) {
      if (loaded !== file) return;
      var countries = unwrapAll(topojson.feature(topology, topology.objects.countries));
      outlines.clearLayers();
      L.geoJSON(countries, {
        pane: "basemap", renderer: renderer, interactive: false,
        style: { className: "country", color: "#a59f92", weight: 0.8, fillColor: "#f4f1ea", fillOpacity: 1 }
      }).addTo(outlines);
      el.setAttribute("data-basemap", file);
    }).catch(function (error) { el.setAttribute("data-basemap-error", String(error.message || error)); });
  }
  map.attributionControl.addAttribution("Outlines: Natural Earth");
  if (config.tiles) {
    L.tileLayer(config.tiles.url, { attribution: escape(config.tiles.attribution), maxZoom: 19 }).addTo(map);
  }

  function isPoint(f) { return f.geometry && (f.geometry.type === "Point" || f.geometry.type === "MultiPoint"); }
  var POINT = { radius: 6, color: "#ffffff", weight: 1.5, fillColor: "#d32f2f", fillOpacity: 0.9, className: "feature-marker" };
  var SHAPE = { color: "#1b5fae", weight: 2, fillColor: "#1b5fae", fillOpacity: 0.2, className: "feature-marker" };

  function short(hex) { return typeof hex === "string" && hex.length > 12 ? hex.slice(0, 6) + "\\u2026" + hex.slice(-4) : hex; }
  function when(iso) { return typeof iso === "string" ? iso.slice(0, 16).replace("T", " ") + " UTC" : "none"; }
  function add(parent, tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    parent.appendChild(node);
    return node;
  }
  function popup(f) {
    var p = f.properties || {};
    var box = document.createElement("div");
    add(box, "div", p.memo || p.location || "Location proof", "title");
    var dl = add(box, "dl");
    [["Event", when(p.event_timestamp)], ["Chain", p.chain], ["Revoked", p.revoked ? "yes" : "no"],
      ["Prover", short(p.prover)]].forEach(function (row) {
      add(dl, "dt", row[0]);
      var dd = add(dl, "dd", row[1] === undefined || row[1] === null ? "" : String(row[1]));
      if (row[0] === "Prover" && p.prover) dd.title = p.prover;
    });
    if (config.itemPath && f.id) {
      var a = add(box, "a", "Proof details \\u2192", "more");
      a.href = config.itemPath + encodeURIComponent(f.id) + "?f=html";
      a.title = String(f.id);
    }
    return box;
  }
  // The popup never outgrows the map: its size follows the map's, and its content scrolls inside.
  map.on("popupopen", function (event) {
    var size = map.getSize();
    var options = event.popup.options;
    options.maxWidth = Math.max(160, Math.min(300, size.x - 60));
    options.minWidth = Math.min(200, options.maxWidth);
    options.maxHeight = Math.max(60, size.y - 90);
    event.popup.update();
  });

  var layer = L.geoJSON(data, {
    filter: function (f) { return f.geometry !== null; },
    pointToLayer: function (f, latlng) { return L.circleMarker(latlng, POINT); },
    style: function (f) { return isPoint(f) ? POINT : SHAPE; },
    onEachFeature: function (f, l) {
      l.bindPopup(function () { return popup(f); }, { className: "proof-popup", autoPanPadding: [10, 10] });
    }
  }).addTo(map);

  var bounds = layer.getBounds();
  if (config.extent) {
    var w = config.extent[0], s = config.extent[1], e = config.extent[2], n = config.extent[3];
    // West > east crosses the antimeridian: draw it as one box past 180.
    if (e < w) e += 360;
    var box = L.rectangle([[s, w], [n, e]], { color: "#1b5fae", weight: 2, dashArray: "6 4", fillOpacity: 0.08,
      interactive: false, className: "extent-box" }).addTo(map);
    bounds = box.getBounds();
  }
  // Without tiles the outlines are all there is to see: stop where a country is still recognisable.
  var maxZoom = config.tiles ? 14 : 5;
  if (bounds.isValid()) map.fitBounds(bounds, { padding: [24, 24], maxZoom: maxZoom });
  else map.fitBounds([[-55, -170], [75, 170]]);
  drawOutlines(map.getZoom() >= 4 ? "countries-50m.json" : "countries-110m.json");
  map.on("zoomend", function () { if (map.getZoom() >= 4) drawOutlines("countries-50m.json"); });
  el.setAttribute("data-feature-count", String(layer.getLayers().length));
})();
`;

/**
 * The map of every proof (the location-proofs items page): MapLibre GL JS, from our own origin, draws the
 * collection's vector tiles (lib/tiles/) with the page's filters over Natural Earth's country outlines (and the
 * configured raster tiles above them, when there are any). Clusters are discs with their counts (drawn here on a
 * canvas as icons, so no font files are needed), which a click zooms into; proofs are red points, which a click
 * opens in a popup linking to the proof's page; a cluster of one opens that proof too. Once the map is idle its
 * element says what it drew, for people's tools and the browser tests: data-points, data-clusters, data-proofs (the
 * proofs drawn), data-first-point and data-first-cluster (where one is on screen), data-basemap, data-countries,
 * data-layers (bottom to top), then data-ready. Configuration comes from the page's JSON block "tile-map-config".
 */
export const TILE_MAP_JS = `import * as maplibregl from "./maplibre-gl.mjs";

const el = document.getElementById("map");
const configEl = document.getElementById("tile-map-config");
if (el && configEl) start(JSON.parse(configEl.textContent));

function start(config) {
  maplibregl.setWorkerUrl(new URL("./maplibre-gl-worker.mjs", import.meta.url).href);
  const tiles = new URL(config.tiles, location.href).href.replace(/%7B/g, "{").replace(/%7D/g, "}");
  const style = {
    version: 8,
    sources: {
      countries: { type: "geojson", data: { type: "FeatureCollection", features: [] } },
      proofs: { type: "vector", tiles: [tiles], minzoom: 0, maxzoom: config.maxZoom },
    },
    layers: [
      { id: "sea", type: "background", paint: { "background-color": "#cfe1ef" } },
      { id: "land", type: "fill", source: "countries", paint: { "fill-color": "#f4f1ea" } },
      { id: "borders", type: "line", source: "countries", paint: { "line-color": "#a59f92", "line-width": 0.8 } },
    ],
  };
  if (config.basemap) {
    style.sources.basemap = { type: "raster", tiles: [config.basemap.url], tileSize: 256, maxzoom: 19,
      attribution: escape(config.basemap.attribution) };
    style.layers.push({ id: "basemap", type: "raster", source: "basemap" });
  }
  style.layers.push(
    { id: "points", type: "circle", source: "proofs", "source-layer": config.layers.points,
      paint: { "circle-radius": 6, "circle-color": "#d32f2f", "circle-stroke-color": "#ffffff", "circle-stroke-width": 1.5 } },
    { id: "clusters", type: "symbol", source: "proofs", "source-layer": config.layers.clusters,
      layout: { "icon-image": ["concat", "cluster-", ["to-string", ["get", "count"]]], "icon-allow-overlap": true,
        "icon-ignore-placement": true } },
  );
  const coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  const map = new maplibregl.Map({
    container: el, style, renderWorldCopies: false, maxZoom: config.maxZoom + 4, hash: "map",
    cooperativeGestures: coarse, attributionControl: { compact: true },
    bounds: config.bounds || [[-170, -58], [170, 75]], fitBoundsOptions: { padding: 16 },
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-left");
  // A filter keeps the map where it is: the view travels in the URL's #map=zoom/lat/lon.
  for (const a of document.querySelectorAll(".map-filters a")) {
    a.addEventListener("click", () => { a.href = a.href.split("#")[0] + location.hash; });
  }
  // Each count's disc is drawn when a tile first needs it.
  map.setMissingStyleImageResolver((id) => {
    const m = /^cluster-(\\d+)$/.exec(id);
    if (m && !map.hasImage(id)) map.addImage(id, clusterImage(Number(m[1])), { pixelRatio: 2 });
  });
  map.on("load", () => {
    el.setAttribute("data-layers", map.getStyle().layers.map((l) => l.id).join(","));
    drawOutlines(map, config);
  });
  map.on("idle", () => {
    const points = map.queryRenderedFeatures({ layers: ["points"] });
    const clusters = map.queryRenderedFeatures({ layers: ["clusters"] });
    el.setAttribute("data-points", String(points.length));
    el.setAttribute("data-clusters", String(clusters.length));
    el.setAttribute("data-proofs", String(clusters.reduce((n, f) => n + Number(f.properties.count), points.length)));
    el.setAttribute("data-feature-count", String(points.length + clusters.length));
    const at = (f) => {
      if (!f) return "null";
      const p = map.project(f.geometry.coordinates);
      return JSON.stringify([Math.round(p.x), Math.round(p.y)]);
    };
    el.setAttribute("data-first-point", at(points[0]));
    el.setAttribute("data-first-cluster", at(clusters[0]));
    el.setAttribute("data-ready", "");
  });
  map.on("error", (event) => el.setAttribute("data-map-error", String((event.error && event.error.message) || event)));
  for (const layer of ["points", "clusters"]) {
    map.on("mouseenter", layer, () => { map.getCanvas().style.cursor = "pointer"; });
    map.on("mouseleave", layer, () => { map.getCanvas().style.cursor = ""; });
  }
  map.on("click", "points", (event) => {
    const f = event.features[0];
    showPopup(map, config, f.geometry.coordinates, f.properties);
  });
  map.on("click", "clusters", (event) => {
    const f = event.features[0];
    const count = Number(f.properties.count);
    if (count === 1 && f.properties.uid) {
      fetch(config.itemPath + encodeURIComponent(f.properties.uid), { headers: { accept: "application/geo+json" } })
        .then((r) => (r.ok ? r.json() : Promise.reject(new Error("HTTP " + r.status))))
        .then((feature) => showPopup(map, config, f.geometry.coordinates, { ...feature.properties, uid: feature.id }))
        .catch(() => {});
      return;
    }
    map.easeTo({ center: f.geometry.coordinates, zoom: Math.min(map.getMaxZoom(), map.getZoom() + 2) });
  });
}

function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** A cluster's disc with its count (1.2k, 35k, 1.4M above a thousand), drawn at twice the CSS size. */
function clusterImage(count) {
  const label = count < 1000 ? String(count)
    : count < 1e6 ? (count < 1e4 ? (Math.floor(count / 100) / 10) : Math.floor(count / 1000)) + "k"
    : (Math.floor(count / 1e5) / 10) + "M";
  const radius = count < 10 ? 13 : count < 100 ? 16 : count < 1000 ? 19 : count < 1e4 ? 22 : 25;
  const size = (radius + 3) * 2 * 2;
  const canvas = document.createElement("canvas");
  canvas.width = size;
  canvas.height = size;
  const ctx = canvas.getContext("2d");
  ctx.scale(2, 2);
  const c = size / 4;
  ctx.beginPath();
  ctx.arc(c, c, radius + 2, 0, 2 * Math.PI);
  ctx.fillStyle = "rgba(211, 47, 47, 0.25)";
  ctx.fill();
  ctx.beginPath();
  ctx.arc(c, c, radius - 1, 0, 2 * Math.PI);
  ctx.fillStyle = "#d32f2f";
  ctx.fill();
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = "#ffffff";
  ctx.stroke();
  ctx.fillStyle = "#ffffff";
  ctx.font = "600 12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(label, c, c + 0.5);
  const image = ctx.getImageData(0, 0, size, size);
  return { width: size, height: size, data: new Uint8Array(image.data.buffer) };
}

function short(hex) {
  return typeof hex === "string" && hex.length > 12 ? hex.slice(0, 6) + "\\u2026" + hex.slice(-4) : hex;
}
function when(iso) {
  return typeof iso === "string" ? iso.slice(0, 16).replace("T", " ") + " UTC" : "none";
}
function add(parent, tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  parent.appendChild(node);
  return node;
}

/** The popup of a proof: its memo, time, chain, revoked and prover, and a link to its page. */
function showPopup(map, config, coordinates, p) {
  const box = document.createElement("div");
  add(box, "div", p.memo || p.location || "Location proof", "title");
  const dl = add(box, "dl");
  const revoked = p.revoked === true || p.revoked === "true";
  for (const [name, value] of [["Event", when(p.event_timestamp)], ["Chain", p.chain], ["Revoked", revoked ? "yes" : "no"],
    ["Prover", short(p.prover)]]) {
    add(dl, "dt", name);
    const dd = add(dl, "dd", value === undefined || value === null ? "" : String(value));
    if (name === "Prover" && p.prover) dd.title = p.prover;
  }
  if (p.uid) {
    const a = add(box, "a", "Proof details \\u2192", "more");
    a.href = config.itemPath + encodeURIComponent(p.uid) + "?f=html";
    a.title = String(p.uid);
  }
  const size = map.getContainer().getBoundingClientRect();
  new maplibregl.Popup({ className: "proof-popup", maxWidth: Math.max(160, Math.min(300, size.width - 60)) + "px" })
    .setLngLat(coordinates)
    .setDOMContent(box)
    .addTo(map);
}

/**
 * Natural Earth's outlines (world-atlas TopoJSON, made GeoJSON by topojson-client): 1:110m for the world, 1:50m
 * from zoom 4. Rings that cross the antimeridian are unwrapped past 180 so that none is drawn across the world.
 */
function drawOutlines(map, config) {
  let loaded = null;
  const load = (file) => {
    if (loaded === file || !window.topojson) return;
    loaded = file;
    fetch(config.assets + file)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(file + ": HTTP " + r.status))))
      .then((topology) => {
        if (loaded !== file) return;
        const countries = unwrapAll(window.topojson.feature(topology, topology.objects.countries));
        map.getSource("countries").setData(countries);
        map.getContainer().setAttribute("data-basemap", file);
        map.getContainer().setAttribute("data-countries", String(countries.features.length));
      })
      .catch((error) => map.getContainer().setAttribute("data-basemap-error", String(error.message || error)));
  };
  load(map.getZoom() >= 4 ? "countries-50m.json" : "countries-110m.json");
  map.on("zoomend", () => { if (map.getZoom() >= 4) load("countries-50m.json"); });
}

${OUTLINE_RINGS_JS}
`;
