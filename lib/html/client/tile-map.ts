import type { FeatureCollection, Point } from "geojson";
// Served beside this module as ./maplibre-gl.mjs: the bundler keeps the import and points it there
// (lib/html/client-build.ts).
import * as maplibregl from "maplibre-gl";
import { unwrapAll } from "./outline-rings.js";
import { escapeHtml, proofPopup } from "./popup.js";

/*
 * The map of every proof (tile-map.mjs, the location-proofs items page): MapLibre GL JS, from our own origin, draws
 * the collection's vector tiles (lib/tiles/) with the page's filters over Natural Earth's country outlines (and the
 * configured raster tiles above them, when there are any). The proofs' layers are the collection's served style (lib/maps/style.ts,
 * fetched from config.style): clusters are discs that grow with their counts, which a click zooms into; proofs are red points, which a click
 * opens in a popup linking to the proof's page; a cluster of one opens that proof too. Once the map is idle its
 * element says what it drew, for people's tools and the browser tests: data-points, data-clusters, data-proofs (the
 * proofs drawn), data-first-point and data-first-cluster (where one is on screen), data-basemap, data-countries,
 * data-layers (bottom to top), then data-ready. Configuration comes from the page's JSON block "tile-map-config".
 */

type TileMapConfig = {
  tiles: string;
  /** the collection's MapLibre style sheet (with the page's filters): its proofs source and its layers are drawn */
  style: string;
  maxZoom: number;
  assets: string;
  itemPath: string;
  layers: { points: string; clusters: string };
  basemap?: { url: string; attribution: string };
  bounds?: maplibregl.LngLatBoundsLike;
  /** how often the map re-reads its TileJSON, whose tile URLs carry the data version (lib/data-version/) */
  refreshSeconds?: number;
};

const el = document.getElementById("map");
const configEl = document.getElementById("tile-map-config");
if (el && configEl) {
  const config = JSON.parse(configEl.textContent ?? "") as TileMapConfig;
  // The proofs are drawn as the served style draws them (lib/maps/style.ts): what people see is that style.
  fetch(config.style)
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`style: HTTP ${r.status}`))))
    .then((sheet: maplibregl.StyleSpecification) => start(el, config, sheet))
    .catch((error: Error) => el.setAttribute("data-map-error", error.message));
}

function start(el: HTMLElement, config: TileMapConfig, sheet: maplibregl.StyleSpecification) {
  maplibregl.setWorkerUrl(new URL("./maplibre-gl-worker.mjs", import.meta.url).href);
  const style: maplibregl.StyleSpecification = {
    version: 8,
    sources: {
      countries: { type: "geojson", data: { type: "FeatureCollection", features: [] } },
      proofs: sheet.sources.proofs!,
    },
    layers: [
      { id: "sea", type: "background", paint: { "background-color": "#cfe1ef" } },
      { id: "land", type: "fill", source: "countries", paint: { "fill-color": "#f4f1ea" } },
      {
        id: "borders",
        type: "line",
        source: "countries",
        paint: { "line-color": "#a59f92", "line-width": 0.8 },
      },
    ],
  };
  if (config.basemap) {
    style.sources.basemap = {
      type: "raster",
      tiles: [config.basemap.url],
      tileSize: 256,
      maxzoom: 19,
      attribution: escapeHtml(config.basemap.attribution),
    };
    style.layers.push({ id: "basemap", type: "raster", source: "basemap" });
  }
  style.layers.push(...sheet.layers);
  const coarse = window.matchMedia?.("(pointer: coarse)").matches;
  const map = new maplibregl.Map({
    container: el,
    style,
    renderWorldCopies: false,
    maxZoom: config.maxZoom + 4,
    hash: "map",
    cooperativeGestures: coarse,
    attributionControl: { compact: true },
    bounds: config.bounds || [
      [-170, -58],
      [170, 75],
    ],
    fitBoundsOptions: { padding: 16 },
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-left");
  // A filter keeps the map where it is: the view travels in the URL's #map=zoom/lat/lon.
  for (const a of document.querySelectorAll<HTMLAnchorElement>(".map-filters a")) {
    a.addEventListener("click", () => {
      a.href = a.href.split("#")[0] + location.hash;
    });
  }
  // Each count's disc is drawn when a tile first needs it.
  map.setMissingStyleImageResolver((id) => {
    const m = /^cluster-(\d+)$/.exec(id);
    if (m && !map.hasImage(id)) map.addImage(id, clusterImage(Number(m[1])), { pixelRatio: 2 });
  });
  map.on("load", () => {
    el.setAttribute(
      "data-layers",
      map
        .getStyle()
        .layers.map((l) => l.id)
        .join(","),
    );
    drawOutlines(map, config);
    followVersion(map, sheet, config);
  });
  map.on("idle", () => {
    const points = map.queryRenderedFeatures({ layers: ["points"] });
    const clusters = map.queryRenderedFeatures({ layers: ["clusters"] });
    el.setAttribute("data-points", String(points.length));
    el.setAttribute("data-clusters", String(clusters.length));
    el.setAttribute(
      "data-proofs",
      String(clusters.reduce((n, f) => n + Number(f.properties.count), points.length)),
    );
    el.setAttribute("data-feature-count", String(points.length + clusters.length));
    const at = (f: maplibregl.MapGeoJSONFeature | undefined) => {
      if (!f) return "null";
      const p = map.project(pointOf(f));
      return JSON.stringify([Math.round(p.x), Math.round(p.y)]);
    };
    el.setAttribute("data-first-point", at(points[0]));
    // A cluster of one opens its proof's popup; the first one that a click zooms into is the one worth naming.
    el.setAttribute(
      "data-first-cluster",
      at(clusters.find((f) => Number(f.properties.count) > 1) ?? clusters[0]),
    );
    el.setAttribute("data-ready", "");
  });
  map.on("error", (event) => el.setAttribute("data-map-error", String(event.error?.message || event)));
  for (const layer of ["points", "clusters"]) {
    map.on("mouseenter", layer, () => {
      map.getCanvas().style.cursor = "pointer";
    });
    map.on("mouseleave", layer, () => {
      map.getCanvas().style.cursor = "";
    });
  }
  map.on("click", "points", (event) => {
    const f = event.features![0]!;
    showPopup(map, config, pointOf(f), f.properties);
  });
  map.on("click", "clusters", (event) => {
    const f = event.features![0]!;
    const count = Number(f.properties.count);
    if (count === 1 && f.properties.uid) {
      fetch(config.itemPath + encodeURIComponent(f.properties.uid), {
        headers: { accept: "application/geo+json" },
      })
        .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
        .then((feature) => showPopup(map, config, pointOf(f), { ...feature.properties, uid: feature.id }))
        .catch(() => {});
      return;
    }
    map.easeTo({ center: pointOf(f), zoom: Math.min(map.getMaxZoom(), map.getZoom() + 2) });
  });
}

/** Where a rendered point or cluster is: both tile layers hold points. */
const pointOf = (f: maplibregl.MapGeoJSONFeature) => (f.geometry as Point).coordinates as [number, number];

/** A cluster's disc with its count (1.2k, 35k, 1.4M above a thousand), drawn at twice the CSS size. */
function clusterImage(count: number) {
  const label =
    count < 1000
      ? String(count)
      : count < 1e6
        ? `${count < 1e4 ? Math.floor(count / 100) / 10 : Math.floor(count / 1000)}k`
        : `${Math.floor(count / 1e5) / 10}M`;
  const radius = count < 10 ? 13 : count < 100 ? 16 : count < 1000 ? 19 : count < 1e4 ? 22 : 25;
  const size = (radius + 3) * 2 * 2;
  const canvas = document.createElement("canvas");
  canvas.width = size;
  canvas.height = size;
  const ctx = canvas.getContext("2d")!;
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

/** The popup of a proof: its memo, time, chain, revoked and prover, and a link to its page. */
function showPopup(
  map: maplibregl.Map,
  config: TileMapConfig,
  coordinates: [number, number],
  p: Record<string, unknown>,
) {
  const revoked = p.revoked === true || p.revoked === "true";
  const uid = p.uid ? String(p.uid) : undefined;
  const box = proofPopup(
    p,
    revoked,
    uid ? { href: `${config.itemPath + encodeURIComponent(uid)}?f=html`, title: uid } : undefined,
  );
  const size = map.getContainer().getBoundingClientRect();
  new maplibregl.Popup({
    className: "proof-popup",
    maxWidth: `${Math.max(160, Math.min(300, size.width - 60))}px`,
  })
    .setLngLat(coordinates)
    .setDOMContent(box)
    .addTo(map);
}

/**
 * Natural Earth's outlines (world-atlas TopoJSON, made GeoJSON by topojson-client): 1:110m for the world, 1:50m
 * from zoom 4. Rings that cross the antimeridian are unwrapped past 180 so that none is drawn across the world.
 */
function drawOutlines(map: maplibregl.Map, config: TileMapConfig) {
  let loaded: string | null = null;
  const load = (file: string) => {
    const topojson = window.topojson;
    if (loaded === file || !topojson) return;
    loaded = file;
    fetch(config.assets + file)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${file}: HTTP ${r.status}`))))
      .then((topology) => {
        if (loaded !== file) return;
        const countries: FeatureCollection = unwrapAll(
          topojson.feature(topology, topology.objects.countries),
        );
        (map.getSource("countries") as maplibregl.GeoJSONSource).setData(countries);
        map.getContainer().setAttribute("data-basemap", file);
        map.getContainer().setAttribute("data-countries", String(countries.features.length));
      })
      .catch((error) =>
        map.getContainer().setAttribute("data-basemap-error", String(error.message || error)),
      );
  };
  load(map.getZoom() >= 4 ? "countries-50m.json" : "countries-110m.json");
  map.on("zoomend", () => {
    if (map.getZoom() >= 4) load("countries-50m.json");
  });
}

/**
 * The tile URLs carry the data version, and caches keep them forever (lib/data-version/tile-version.ts): the map
 * re-reads its TileJSON (short-lived at the caches) every refreshSeconds and, when the sync has written since, draws
 * the tiles of the new version, so a revocation reaches an open map within one cron interval.
 */
function followVersion(map: maplibregl.Map, sheet: maplibregl.StyleSpecification, config: TileMapConfig) {
  const source = sheet.sources.proofs as { url?: string } | undefined;
  if (!source?.url || !config.refreshSeconds) return;
  let tiles: string | undefined;
  setInterval(() => {
    fetch(source.url!)
      .then((r) => (r.ok ? r.json() : undefined))
      .then((doc: { tiles?: string[] } | undefined) => {
        const next = doc?.tiles?.[0];
        if (!next) return;
        if (tiles !== undefined && next !== tiles)
          (map.getSource("proofs") as maplibregl.VectorTileSource | undefined)?.setTiles([next]);
        tiles = next;
      })
      .catch(() => undefined);
  }, config.refreshSeconds * 1000);
}
