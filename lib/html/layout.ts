import { getConfig } from "../config.js";
import { textResponse } from "../http/respond.js";
import { SERVICE_NAME, VERSION } from "../version.js";
import { escapeHtml as e, jsonBlock } from "./escape.js";

/**
 * The one layout of every HTML page (the root, the native list, the OGC views, error pages): a header with the
 * service name and where to go, the page, and a footer with the operator's licence and contact. Pages are
 * rendered on the server; the only scripts are our own files (site.js, and map.js with Leaflet on map pages).
 */

/** Where the pages' files are served, from our own origin (api/ogc/assets/[file].ts, lib/ogc/asset-files.ts). */
export const assetPath = (file: string) => `/api/ogc/assets/${file}`;

/** The header's destinations, relative to the origin (so they hold behind any proxy). */
export const SITE_PATHS = {
  home: "/",
  proofs: "/api/v0/location-proofs?f=html",
  map: "/api/ogc/collections/location-proofs/items?f=html&limit=100",
  ogc: "/api/ogc?f=html",
  docs: "/docs",
} as const;

export type Section = "home" | "proofs" | "map" | "ogc" | "docs";

const NAV: { section: Section; label: string; href: string }[] = [
  { section: "proofs", label: "Proofs", href: SITE_PATHS.proofs },
  { section: "map", label: "Map", href: SITE_PATHS.map },
  { section: "ogc", label: "OGC API", href: SITE_PATHS.ogc },
  { section: "docs", label: "API docs", href: SITE_PATHS.docs },
];

export type Crumb = { title: string; href?: string };

/**
 * What a map shows: GeoJSON features (those without geometry are not drawn), or a collection's extent as a box.
 * The country outlines (and the tile layer, when configured) are drawn under them by map.js.
 */
export type MapSpec = {
  features?: { type: "Feature"; id?: string; geometry: unknown; properties?: unknown }[];
  /** The path of a feature's HTML page, before its uid: the popup links there. */
  itemPath?: string;
  /** [west, south, east, north]; west > east crosses the antimeridian. */
  extent?: readonly number[];
  label: string;
};

/** The map's element and its data, as JSON blocks map.js reads (the features, and how to draw the basemap). */
export function mapSection(spec: MapSpec): string {
  const tiles = getConfig().basemapTiles;
  return `<div id="map" class="map" role="region" aria-label="${e(spec.label)}"></div>
${jsonBlock("features", { type: "FeatureCollection", features: spec.features ?? [] })}
${jsonBlock("map-config", {
  assets: assetPath(""),
  itemPath: spec.itemPath ?? null,
  extent: spec.extent ?? null,
  tiles: tiles ? { url: tiles.url, attribution: tiles.attribution } : null,
})}`;
}

export function page(options: {
  title: string;
  section?: Section;
  crumbs?: Crumb[];
  /** Already-escaped HTML under the title. */
  lead?: string;
  body: string;
  /** The body holds a mapSection(): load Leaflet and the map script. */
  map?: boolean;
  /** More of our own files in the head (already-built tags), e.g. the docs page's renderer. */
  head?: string;
}): string {
  const crumbs = options.crumbs?.length
    ? `<nav class="crumbs" aria-label="Breadcrumb">${options.crumbs
        .map((c) => (c.href ? `<a href="${e(c.href)}">${e(c.title)}</a>` : `<span>${e(c.title)}</span>`))
        .join(' <span aria-hidden="true">›</span> ')}</nav>`
    : "";
  const mapHead = options.map
    ? `<link rel="stylesheet" href="${assetPath("leaflet.css")}">
<script src="${assetPath("leaflet.js")}" defer></script>
<script src="${assetPath("topojson-client.js")}" defer></script>
<script src="${assetPath("map.js")}" defer></script>`
    : "";
  const nav = NAV.map(
    (n) =>
      `<a href="${e(n.href)}"${n.section === options.section ? ' aria-current="page"' : ""}>${e(n.label)}</a>`,
  ).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(options.title)} · ${e(SERVICE_NAME)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assetPath("site.css")}">
${mapHead}${options.head ?? ""}
<script src="${assetPath("site.js")}" defer></script>
</head>
<body>
<header class="site-header"><div class="inner">
<a class="brand" href="${SITE_PATHS.home}">${e(SERVICE_NAME)}</a>
<nav class="site-nav" aria-label="Main">${nav}</nav>
</div></header>
<main>
${crumbs}
<h1>${e(options.title)}</h1>
${options.lead ? `<p class="lead">${options.lead}</p>` : ""}
${options.body}
</main>
${footer()}
</body>
</html>
`;
}

/**
 * DATA_LICENSE is a name, a URL, or a name followed by its URL ("CC BY 4.0 https://…"): the name is shown, linked
 * to the URL when there is one. SERVICE_CONTACT_URL is an http(s) or mailto: URL.
 */
function footer(): string {
  const { dataLicense, contactUrl } = getConfig();
  const parts: string[] = [];
  if (dataLicense) {
    const [, name = "", url] = /^(.*?)\s*(https?:\/\/\S+)?$/.exec(dataLicense) ?? [];
    const label = e(name || url || dataLicense);
    parts.push(`Data licence: ${url ? `<a href="${e(url)}" rel="license">${label}</a>` : label}`);
  }
  if (contactUrl) parts.push(`<a href="${e(contactUrl)}">Contact</a>`);
  parts.push(`<a href="${SITE_PATHS.docs}">API documentation</a>`);
  return `<footer class="site-footer"><div class="inner">
<p><strong>${e(SERVICE_NAME)}</strong> ${e(VERSION)} · public, read-only location proofs from EAS attestations</p>
<p>${parts.join(" · ")}</p>
</div></footer>`;
}

/**
 * The policy of every HTML page: our own origin only (no inline script or style, no other origin), except the
 * configured tile server's one origin when BASEMAP_TILE_URL is set: its images (Leaflet loads them as images, the
 * map of every proof fetches them).
 */
export function contentSecurityPolicy(): string {
  const tiles = getConfig().basemapTiles?.origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data:${tiles ? ` ${tiles}` : ""}`,
    `connect-src 'self'${tiles ? ` ${tiles}` : ""}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export const htmlResponse = (body: string, status = 200): Response =>
  textResponse(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { "content-security-policy": contentSecurityPolicy() },
  });
