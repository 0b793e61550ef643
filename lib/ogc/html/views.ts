import type { OgcFeature } from "../feature.js";
import type { FeatureCollection } from "../items.js";
import { type Link, PATHS, REL } from "../vocabulary.js";
import { escapeHtml as e, jsonBlock, linkList, page } from "./page.js";

/** Server-rendered HTML views of the OGC resources (the Part 1 "html" conformance class). */

const home = (href: (path: string) => string) => ({
  title: "OGC API",
  href: `${href(PATHS.landing)}?f=html`,
});

type Href = (path: string) => string;

export function landingHtml(doc: { title: string; description: string; links: Link[] }): string {
  return page({
    title: doc.title,
    crumbs: [{ title: "OGC API" }],
    body: `<p>${e(doc.description)}</p>${linkList(doc.links)}`,
  });
}

export function conformanceHtml(doc: { conformsTo: string[] }, href: Href): string {
  return page({
    title: "Conformance",
    crumbs: [home(href), { title: "Conformance" }],
    body: `<ul>${doc.conformsTo.map((c) => `<li><code>${e(c)}</code></li>`).join("")}</ul>`,
  });
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
          .map((p) => `<code>${e(p.name)}</code>: ${e(p.description ?? "")}`)
          .join("<br>")}</td></tr>`,
    )
    .join("");
  return page({
    title: doc.info.title,
    crumbs: [home(href), { title: "API" }],
    body: `<p>${e(doc.info.description)}</p><p><a href="${e(href(PATHS.api))}">OpenAPI 3.0 definition (JSON)</a></p>
<table><tr><th>Path</th><th>Summary</th><th>Parameters</th></tr>${rows}</table>`,
  });
}

type CollectionDoc = {
  id: string;
  title: string;
  description: string;
  extent: { spatial: { bbox: number[][] }; temporal: { interval: (string | null)[][] } };
  links: Link[];
};

const collectionBlock = (c: CollectionDoc, heading: boolean) =>
  `${heading ? `<h2>${e(c.title)}</h2>` : ""}<p>${e(c.description)}</p>
<table><tr><th>id</th><td>${e(c.id)}</td></tr>
<tr><th>spatial extent</th><td>${e(c.extent.spatial.bbox[0]?.join(", "))}</td></tr>
<tr><th>temporal extent</th><td>${e(c.extent.temporal.interval[0]?.map((x) => x ?? "..").join(" / "))}</td></tr></table>
${linkList(c.links)}`;

export function collectionsHtml(doc: { collections: CollectionDoc[]; links: Link[] }, href: Href): string {
  return page({
    title: "Collections",
    crumbs: [home(href), { title: "Collections" }],
    body: doc.collections.map((c) => collectionBlock(c, true)).join(""),
  });
}

export function collectionHtml(doc: CollectionDoc, href: Href): string {
  return page({
    title: doc.title,
    crumbs: [
      home(href),
      { title: "Collections", href: `${href(PATHS.collections)}?f=html` },
      { title: doc.id },
    ],
    body: collectionBlock(doc, false),
  });
}

const MAIN_PROPERTIES = ["chain", "prover", "event_timestamp", "location_type", "revoked"] as const;

function featureRows(features: OgcFeature[]): string {
  return features
    .map((f) => {
      const self = f.id;
      const cells = MAIN_PROPERTIES.map(
        (k) => `<td>${e((f.properties as Record<string, unknown>)[k])}</td>`,
      ).join("");
      return `<tr><td><a href="${e(PATHS.item(self))}?f=html">${e(self)}</a></td>${cells}<td>${f.geometry ? e(f.geometry.type) : "none"}</td></tr>`;
    })
    .join("");
}

export function itemsHtml(doc: FeatureCollection, href: Href): string {
  const next = doc.links.find((l) => l.rel === REL.next);
  const prev = doc.links.find((l) => l.rel === REL.prev);
  const paging = `<p class="paging">${prev ? `<a rel="prev" href="${e(prev.href)}">Previous page</a>` : ""}${
    next ? `<a rel="next" href="${e(next.href)}">Next page</a>` : ""
  }<span>${doc.numberReturned} of ${doc.numberMatched} features</span></p>`;
  return page({
    title: "Location proofs",
    crumbs: [
      home(href),
      { title: "Collections", href: `${href(PATHS.collections)}?f=html` },
      { title: "location-proofs", href: `${href(PATHS.collection)}?f=html` },
      { title: "items" },
    ],
    map: true,
    body: `<div id="map"></div>${jsonBlock("features", { type: "FeatureCollection", features: doc.features })}
${paging}
<table><tr><th>id</th>${MAIN_PROPERTIES.map((k) => `<th>${k}</th>`).join("")}<th>geometry</th></tr>${featureRows(doc.features)}</table>
${linkList(doc.links)}`,
  });
}

export function itemHtml(doc: OgcFeature & { links: Link[] }, href: Href): string {
  const rows = Object.entries(doc.properties)
    .map(
      ([k, v]) =>
        `<tr><th>${e(k)}</th><td>${e(typeof v === "object" && v !== null ? JSON.stringify(v) : v)}</td></tr>`,
    )
    .join("");
  return page({
    title: `Location proof ${doc.id}`,
    crumbs: [
      home(href),
      { title: "location-proofs", href: `${href(PATHS.items)}?f=html` },
      { title: doc.id },
    ],
    map: true,
    body: `<div id="map"></div>${jsonBlock("features", { type: "FeatureCollection", features: [{ ...doc, links: undefined }] })}
<table><tr><th>geometry</th><td>${e(doc.geometry ? JSON.stringify(doc.geometry) : "none")}</td></tr>${rows}</table>
${linkList(doc.links)}`,
  });
}

export function queryablesHtml(
  doc: {
    title: string;
    description: string;
    properties: Record<string, { title?: string; type?: string; format?: string }>;
  },
  href: Href,
): string {
  const rows = Object.entries(doc.properties)
    .map(
      ([name, p]) =>
        `<tr><td><code>${e(name)}</code></td><td>${e(p.type ?? p.format ?? "")}</td><td>${e(p.title)}</td></tr>`,
    )
    .join("");
  return page({
    title: doc.title,
    crumbs: [
      home(href),
      { title: "location-proofs", href: `${href(PATHS.collection)}?f=html` },
      { title: "queryables" },
    ],
    body: `<p>${e(doc.description)}</p><table><tr><th>property</th><th>type</th><th>meaning</th></tr>${rows}</table>`,
  });
}
