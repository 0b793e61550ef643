import { cutToListBounds } from "../../bounds/cut.js";
import { syncedNetworks } from "../../chains/registry.js";
import { getConfig } from "../../config.js";
import { MAP_REFRESH_SECONDS } from "../../data-version/tile-version.js";
import { escapeHtml as e, jsonBlock } from "../../html/escape.js";
import { assetPath, type Crumb, mapSection, page, SITE_PATHS } from "../../html/layout.js";
import { humanTime, linkList, pager, proofTable, shortHex, summaryOf, timeCell } from "../../html/parts.js";
import { linkWith } from "../../http/links.js";
import { requestUrl } from "../../http/request-url.js";
import { parseBbox } from "../../params/grammar.js";
import { DAY_MS } from "../../proofs/timestamps.js";
import { mapStyleUrl, mapTileUrl } from "../../tiles/map-tile-url.js";
import { CLUSTERS_LAYER, POINTS_LAYER } from "../../tiles/tile-rules.js";
import { MAX_ZOOM } from "../../tiles/web-mercator.js";
import type { OgcFeature } from "../feature.js";
import { type Collection, type Link, OGC_MAX_LIMIT, PATHS, REL, TILED_COLLECTIONS } from "../vocabulary.js";

/** Server-rendered HTML views of the OGC resources (the Part 1 "html" conformance class), in the site's layout. */

type Href = (path: string) => string;

const ogcHome = (href: Href): Crumb => ({ title: "OGC API", href: `${href(PATHS.landing)}?f=html` });
/** The leads of the pages one step below the OGC landing page, by their titles (their crumbs). */
const OGC_LEADS = {
  Conformance: "The OGC API standards and parts this service implements.",
  Collections: "The same location proofs in two collections: as points, or as their full shapes.",
  "Tile matrix sets": "The tiling schemes the tiles use.",
} as const;
const ogcPage = (href: Href, title: keyof typeof OGC_LEADS, body: string) =>
  page({ title, section: "ogc", crumbs: [ogcHome(href), { title }], lead: OGC_LEADS[title], body });
const collectionsCrumb = (href: Href): Crumb => ({
  title: "Collections",
  href: `${href(PATHS.collections)}?f=html`,
});
const collectionCrumb = (href: Href, c: Pick<Collection, "id" | "title">): Crumb => ({
  title: c.title,
  href: `${href(PATHS.collection(c.id as Collection["id"]))}?f=html`,
});

/** A feature's HTML page, relative to the origin. */
const itemPage = (collection: Collection) => (uid: string) => `${PATHS.item(collection.id, uid)}?f=html`;

export function landingHtml(doc: { title: string; description: string; links: Link[] }): string {
  const link = (rel: string) => doc.links.find((l) => l.rel === rel)?.href ?? "";
  const self = link(REL.self);
  const base = self.split("?")[0];
  return page({
    title: "OGC API – Features",
    section: "ogc",
    lead: e(doc.description),
    body: `<div class="actions">
<a class="button primary" href="${e(`${link(REL.data).split("?")[0]}?f=html`)}">Browse the collections</a>
<a class="button" href="${e(SITE_PATHS.map)}">Open the map</a>
<a class="button" href="${e(link(REL.serviceDoc))}">OGC API reference</a>
</div>
<h2>Use it from a map client</h2>
<p>In QGIS: <em>Layer → Add Layer → Add WFS / OGC API - Features Layer</em>, new connection with this URL:</p>
<p><code class="copyable">${e(base)}</code> <button type="button" class="copy" data-copy="${e(base)}" title="Copy the URL" hidden>Copy</button></p>
<p>With GDAL: <code>ogrinfo OAPIF:${e(base)} location-proofs</code></p>
<h2>More</h2>
${linkList(doc.links)}`,
  });
}

export function conformanceHtml(doc: { conformsTo: string[] }, href: Href): string {
  return ogcPage(
    href,
    "Conformance",
    `<ul class="plain">${doc.conformsTo.map((c) => `<li><code>${e(c)}</code></li>`).join("")}</ul>`,
  );
}

export function apiHtml(
  doc: {
    info: { title: string; description: string };
    servers: { url: string }[];
    paths: Record<string, { get: { summary: string; parameters: { name: string; description?: string }[] } }>;
  },
  href: Href,
): string {
  const server = doc.servers[0]?.url ?? "";
  const rows = Object.entries(doc.paths)
    .map(
      ([path, item]) =>
        `<tr><td><code>GET ${e(server + path)}</code></td><td>${e(item.get.summary)}</td><td>${item.get.parameters
          .map((p) => `<code>${e(p.name)}</code> ${e(p.description ?? "")}`)
          .join("<br>")}</td></tr>`,
    )
    .join("");
  return page({
    title: doc.info.title,
    section: "ogc",
    crumbs: [ogcHome(href), { title: "API" }],
    lead: e(doc.info.description),
    body: `<p><a href="${e(href(PATHS.api))}" title="rel: service-desc · application/vnd.oai.openapi+json;version=3.0">The OpenAPI 3.0 definition (JSON)</a></p>
<div class="table-wrap"><table class="data api"><thead><tr><th scope="col">Path</th><th scope="col">Summary</th><th scope="col">Parameters</th></tr></thead><tbody>${rows}</tbody></table></div>`,
  });
}

type CollectionDoc = {
  id: string;
  title: string;
  description: string;
  extent: { spatial: { bbox: number[][] }; temporal: { interval: (string | null)[][] } };
  links: Link[];
};

const degrees = (x: number | undefined, pos: string, neg: string) =>
  x === undefined ? "" : `${Math.abs(Math.round(x * 1000) / 1000)}° ${x < 0 ? neg : pos}`;

function extentFacts(c: CollectionDoc): string {
  const [w, s, east, n] = c.extent.spatial.bbox[0] ?? [];
  const [first, last] = c.extent.temporal.interval[0] ?? [];
  const when =
    first || last ? `${humanTime(first) || "open"} → ${humanTime(last) || "open"}` : "no event times yet";
  return `<dl class="facts">
<dt>Area</dt><dd>${e(degrees(w, "E", "W"))} to ${e(degrees(east, "E", "W"))}, ${e(degrees(s, "N", "S"))} to ${e(degrees(n, "N", "S"))}</dd>
<dt>Event times</dt><dd>${e(when)}</dd>
<dt>Id</dt><dd><code>${e(c.id)}</code></dd>
</dl>`;
}

const itemsLink = (c: CollectionDoc, type: string) =>
  c.links.find((l) => l.rel === REL.items && l.type === type)?.href ?? "";

function collectionActions(c: CollectionDoc, withGeojson = true): string {
  const html = itemsLink(c, "text/html");
  const geojson = withGeojson ? itemsLink(c, "application/geo+json") : "";
  const map = html.includes("limit=") ? html : `${html}${html.includes("?") ? "&" : "?"}limit=100`;
  return `<div class="actions"><a class="button primary" href="${e(map)}">Open the map</a>${
    geojson
      ? `<a class="button" href="${e(geojson)}" title="rel: items · application/geo+json">GeoJSON</a>`
      : ""
  }</div>`;
}

export function collectionsHtml(doc: { collections: CollectionDoc[]; links: Link[] }, href: Href): string {
  const cards = doc.collections
    .map(
      (c) => `<section class="card">
<h2><a href="${e(`${href(PATHS.collection(c.id as Collection["id"]))}?f=html`)}">${e(c.title)}</a></h2>
<p>${e(c.description)}</p>
${collectionActions(c)}
</section>`,
    )
    .join("\n");
  return ogcPage(href, "Collections", `<div class="cards">${cards}</div>${linkList(doc.links)}`);
}

export function collectionHtml(doc: CollectionDoc, href: Href): string {
  const box = doc.extent.spatial.bbox[0];
  return page({
    title: doc.title,
    section: "ogc",
    crumbs: [ogcHome(href), collectionsCrumb(href), { title: doc.title }],
    lead: e(doc.description),
    map: true,
    body: `${collectionActions(doc, false)}
${mapSection({ extent: box, label: `Extent of ${doc.title}` })}
${extentFacts(doc)}
${linkList(doc.links.filter((l) => !(l.rel === REL.items && l.type === "text/html")))}`,
  });
}

/** The items page as views.ts reads it (the document of lib/ogc/items.ts). */
type FeaturePage = { features: OgcFeature[]; links: Link[]; numberMatched: number; numberReturned: number };

const PAGE_SIZES = [10, 50, 100, 500, OGC_MAX_LIMIT] as const;

export function itemsHtml(
  doc: FeaturePage,
  request: Request,
  href: Href,
  collection: Collection,
  at: { offset: number; limit: number },
): string {
  const link = (rel: string) => doc.links.find((l) => l.rel === rel)?.href ?? null;
  const rows = doc.features.map((f) => summaryOf(f.properties, f.geometry));
  const drawn = doc.features.filter((f) => f.geometry !== null).length;
  const off = doc.numberReturned - drawn;
  const tiled = (TILED_COLLECTIONS as readonly string[]).includes(collection.id);
  const list = `${pager(request, {
    ...at,
    returned: doc.numberReturned,
    total: doc.numberMatched,
    next: link(REL.next),
    prev: link(REL.prev),
    noun: ["proof", "proofs"],
    sizes: PAGE_SIZES,
  })}
${proofTable(rows, itemPage(collection))}
${linkList(doc.links.filter((l) => l.rel !== REL.next && l.rel !== REL.prev))}`;
  if (tiled) {
    return page({
      title: collection.title,
      section: "map",
      crumbs: [ogcHome(href), collectionsCrumb(href), collectionCrumb(href, collection), { title: "Map" }],
      lead: "Every matching proof with coordinates: where they crowd, discs with their number (click to zoom in); zoomed in, each proof (click for its details). The list below pages through the same proofs.",
      head: TILE_MAP_HEAD,
      body: `${mapFilters(request, collection)}
${tileMapSection(request, collection)}
${list}`,
    });
  }
  return page({
    title: collection.title,
    section: "map",
    crumbs: [ogcHome(href), collectionsCrumb(href), collectionCrumb(href, collection), { title: "Map" }],
    lead: `Click a marker for the proof's details.${
      off === 1
        ? " 1 proof on this page has no coordinates: it is listed, not drawn."
        : off > 1
          ? ` ${off} of the proofs on this page have no coordinates: they are listed, not drawn.`
          : ""
    }`,
    map: true,
    body: `${mapSection({ features: doc.features, itemPath: `${PATHS.items(collection.id)}/`, label: `Map of ${collection.title}` })}
${list}`,
  });
}

/** The map of every proof: MapLibre GL JS and its styles, the outlines' decoder and our script (tile-map.mjs, lib/html/client/tile-map.ts). */
const TILE_MAP_HEAD = `<link rel="stylesheet" href="${assetPath("maplibre-gl.css")}">
<script src="${assetPath("topojson-client.js")}" defer></script>
<script type="module" src="${assetPath("tile-map.mjs")}"></script>
`;

/** The map's element and what tile-map.mjs needs: the tile URL with the page's filters, and the basemap. */
function tileMapSection(request: Request, collection: Collection): string {
  const tiles = getConfig().basemapTiles;
  const bbox = requestUrl(request).searchParams.get("bbox");
  const box = bbox ? parseBbox(bbox, "bbox", true) : undefined;
  return `<div id="map" class="map" role="region" aria-label="${e(`Map of ${collection.title}`)}"></div>
${jsonBlock("tile-map-config", {
  tiles: mapTileUrl(request, collection),
  style: mapStyleUrl(request, collection),
  maxZoom: MAX_ZOOM,
  layers: { points: POINTS_LAYER, clusters: CLUSTERS_LAYER },
  itemPath: `${PATHS.items(collection.id)}/`,
  assets: assetPath(""),
  basemap: tiles ? { url: tiles.url, attribution: tiles.attribution } : null,
  refreshSeconds: MAP_REFRESH_SECONDS,
  bounds:
    box && typeof box !== "string" && box.minLon <= box.maxLon
      ? [
          [box.minLon, box.minLat],
          [box.maxLon, box.maxLat],
        ]
      : null,
})}`;
}

/**
 * The map's and the list's filters as links (they work without script, and each keeps the page's other
 * parameters; the page starts again from its first proof): the chain, and a time window of whole UTC days up to
 * now, on event_timestamp with the items' rule (proofs without an event time stay).
 */
function mapFilters(request: Request, collection: Collection): string {
  const path = PATHS.items(collection.id);
  const params = requestUrl(request).searchParams;
  const choice = (name: string, label: string, value: string | undefined, current: string | null) => {
    const href = linkWith(request, path, { [name]: value }, ["cursor", "offset"]);
    const on = (value ?? null) === current;
    return `<a href="${e(href)}"${on ? ' aria-current="true"' : ""}>${e(label)}</a>`;
  };
  const chain = params.get("chain");
  const chains = [
    choice("chain", "All chains", undefined, chain),
    ...syncedNetworks(getConfig()).map((c) => choice("chain", c.displayName, c.name, chain)),
  ];
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const since = (days: number) => `${new Date(today - days * DAY_MS).toISOString().slice(0, 10)}/..`;
  const datetime = params.get("datetime");
  const windows = [
    choice("datetime", "Any time", undefined, datetime),
    choice("datetime", "Last 7 days", since(7), datetime),
    choice("datetime", "Last 30 days", since(30), datetime),
    choice("datetime", "Last year", since(365), datetime),
  ];
  return `<nav class="map-filters" aria-label="Filters of the map and the list">
<div class="filter"><span class="label">Chain</span>${chains.join("")}</div>
<div class="filter"><span class="label">Event time</span>${windows.join("")}</div>
</nav>`;
}

const valueHtml = (key: string, v: unknown): string => {
  if (v === null || v === undefined) return '<span class="muted">null</span>';
  if (key === "uid")
    return `<code>${e(v)}</code><button type="button" class="copy" data-copy="${e(v)}" title="Copy the uid" hidden>Copy</button>`;
  if (key.endsWith("_time") || key === "event_timestamp") return timeCell(v);
  if (typeof v === "object") return `<code>${e(JSON.stringify(v))}</code>`;
  // Addresses, hashes and uids in monospace: an address fits a phone's line.
  if (typeof v === "string" && /^0x[0-9a-f]+$/i.test(v)) return `<code>${e(v)}</code>`;
  return e(v);
};

export function itemHtml(doc: OgcFeature & { links: Link[] }, href: Href, collection: Collection): string {
  // The page shows the values as a list carries them; the JSON has them whole (lib/bounds/cut.ts says why).
  const { values, cut } = cutToListBounds({
    ...(doc.properties as Record<string, unknown>),
    geometry: doc.geometry,
  });
  const { geometry, ...p } = values;
  const rows = [["geometry", geometry], ...Object.entries(p)]
    .map(([k, v]) => `<tr><th scope="row">${e(k)}</th><td>${valueHtml(String(k), v)}</td></tr>`)
    .join("");
  const facts = [
    `on <strong>${e(p.chain)}</strong>`,
    p.event_timestamp ? `at ${e(humanTime(p.event_timestamp))}` : "without an event time",
    typeof p.prover === "string" ? `by <span title="${e(p.prover)}">${e(shortHex(p.prover))}</span>` : "",
    p.revoked === true ? '<span class="badge badge-revoked">revoked</span>' : "",
  ].filter(Boolean);
  return page({
    title: typeof p.memo === "string" && p.memo ? p.memo : "Location proof",
    section: "map",
    crumbs: [
      ogcHome(href),
      collectionsCrumb(href),
      collectionCrumb(href, collection),
      { title: "Map", href: `${href(PATHS.items(collection.id))}?f=html` },
      { title: shortHex(doc.id) },
    ],
    lead: `Location proof ${facts.join(" ")}`,
    map: true,
    body: `${mapSection({ features: [{ type: "Feature", id: doc.id, geometry, properties: p }], itemPath: `${PATHS.items(collection.id)}/`, label: "Map of this proof" })}
${cut.length ? `<p class="muted">Cut for this page, as a list carries them: ${cut.map((name) => e(name)).join(", ")}. <a href="${e(`${href(PATHS.item(collection.id, doc.id))}?f=json`)}">The whole record</a>.</p>\n` : ""}<div class="table-wrap"><table class="data props"><tbody>${rows}</tbody></table></div>
${linkList(doc.links)}`,
  });
}

export function queryablesHtml(
  doc: {
    title: string;
    description: string;
    properties: Record<string, { title?: string; type?: string | string[]; format?: string }>;
  },
  href: Href,
  collection: Collection,
  kind: "Queryables" | "Schema" | "Sortables" = "Queryables",
): string {
  const rows = Object.entries(doc.properties)
    .map(
      ([name, p]) =>
        `<tr><td><code>${e(name)}</code></td><td>${e(p.format ?? (Array.isArray(p.type) ? p.type.join(" or ") : (p.type ?? "")))}</td><td>${e((p as { description?: string }).description ?? p.title)}</td></tr>`,
    )
    .join("");
  const use = {
    Queryables: "Use them in <code>filter=</code> (CQL2 text) and <code>sortby=</code>.",
    Schema: "What every feature carries (OGC API - Features Part 5), with its roles.",
    Sortables: "Use them in <code>sortby=</code>.",
  }[kind];
  return page({
    title: `${kind} of ${collection.title}`,
    section: "ogc",
    crumbs: [ogcHome(href), collectionsCrumb(href), collectionCrumb(href, collection), { title: kind }],
    lead: `${e(doc.description)} ${use}`,
    body: `<div class="table-wrap"><table class="data"><thead><tr><th scope="col">Property</th><th scope="col">Type</th><th scope="col">Meaning</th></tr></thead><tbody>${rows}</tbody></table></div>`,
  });
}

/** A tile resource's links for people, without the templated tile link (not a page to open). */
const browsable = (links: readonly Link[]) => links.filter((l) => !l.templated);

const tileTemplateOf = (links: readonly Link[]) => links.find((l) => l.rel === REL.item && l.templated)?.href;

/** How to use a tile URL template from QGIS, GDAL and a web map (the same words as docs/tiles.md). */
function tileUse(template: string): string {
  const xyz = template.replace("{tileMatrix}", "{z}").replace("{tileCol}", "{x}").replace("{tileRow}", "{y}");
  return `<h2>Use the tiles</h2>
<p>Tile URL (Mapbox Vector Tiles, <code>{z}/{x}/{y}</code>):</p>
<p><code class="copyable">${e(xyz)}</code> <button type="button" class="copy" data-copy="${e(xyz)}" title="Copy the URL" hidden>Copy</button></p>
<p>In QGIS: <em>Layer → Add Layer → Add Vector Tile Layer</em>, new generic connection with this URL, zoom 0 to ${MAX_ZOOM}.</p>
<p>With GDAL: <code>ogrinfo MVT:${e(xyz.replace("{z}/{x}/{y}", "0/0/0"))}</code></p>`;
}

export function tilesetsHtml(
  doc: { tilesets: { title?: string; links: Link[] }[]; links: Link[] },
  href: Href,
  collection: Collection,
): string {
  const cards = doc.tilesets
    .map((t) => {
      const self = t.links.find((l) => l.rel === REL.self)?.href ?? "";
      return `<section class="card"><h2><a href="${e(`${self}${self.includes("?") ? "&" : "?"}f=html`)}">${e(t.title ?? "Tileset")}</a></h2>
<p>WebMercatorQuad, Mapbox Vector Tiles.</p></section>`;
    })
    .join("\n");
  return page({
    title: `Tilesets of ${collection.title}`,
    section: "ogc",
    crumbs: [ogcHome(href), collectionsCrumb(href), collectionCrumb(href, collection), { title: "Tiles" }],
    lead: "The collection as vector tiles, for map clients.",
    body: `<div class="cards">${cards}</div>${linkList(doc.links)}`,
  });
}

export function tilesetHtml(
  doc: { title: string; description: string; links: Link[]; layers: { id: string; description: string }[] },
  href: Href,
  collection: Collection,
): string {
  const template = tileTemplateOf(doc.links);
  const layers = doc.layers.map((l) => `<li><code>${e(l.id)}</code>: ${e(l.description)}</li>`).join("");
  return page({
    title: doc.title,
    section: "ogc",
    crumbs: [
      ogcHome(href),
      collectionsCrumb(href),
      collectionCrumb(href, collection),
      { title: "Tiles", href: `${href(PATHS.tilesets(collection.id))}?f=html` },
      { title: "WebMercatorQuad" },
    ],
    lead: e(doc.description),
    body: `<h2>Layers</h2><ul class="plain">${layers}</ul>
${template ? tileUse(template) : ""}
${linkList(browsable(doc.links))}`,
  });
}

export function tileMatrixSetsHtml(
  doc: { tileMatrixSets: { id: string; title: string; links: Link[] }[]; links: Link[] },
  href: Href,
): string {
  const items = doc.tileMatrixSets
    .map(
      (t) =>
        `<li><a href="${e(`${href(PATHS.tileMatrixSet(t.id))}?f=html`)}">${e(t.id)}</a>: ${e(t.title)}</li>`,
    )
    .join("");
  return ogcPage(href, "Tile matrix sets", `<ul class="plain">${items}</ul>${linkList(doc.links)}`);
}

export function tileMatrixSetHtml(
  doc: {
    id: string;
    title: string;
    crs: string;
    tileMatrices: { id: string; matrixWidth: number; cellSize: number; scaleDenominator: number }[];
    links: Link[];
  },
  href: Href,
): string {
  const rows = doc.tileMatrices
    .map(
      (m) =>
        `<tr><td>${e(m.id)}</td><td>${e(m.matrixWidth)} × ${e(m.matrixWidth)}</td><td>${e(m.cellSize.toPrecision(6))}</td><td>${e(Math.round(m.scaleDenominator))}</td></tr>`,
    )
    .join("");
  return page({
    title: doc.id,
    section: "ogc",
    crumbs: [
      ogcHome(href),
      { title: "Tile matrix sets", href: `${href(PATHS.tileMatrixSets)}?f=html` },
      { title: doc.id },
    ],
    lead: `${e(doc.title)}: ${e(doc.crs)}, 256-pixel tiles.`,
    body: `<div class="table-wrap"><table class="data"><thead><tr><th scope="col">Tile matrix (zoom)</th><th scope="col">Tiles</th><th scope="col">Metres per pixel</th><th scope="col">Scale 1:</th></tr></thead><tbody>${rows}</tbody></table></div>
${linkList(doc.links)}`,
  });
}
