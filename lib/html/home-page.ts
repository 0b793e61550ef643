import type { proofStats } from "../proofs/stats.js";
import { escapeHtml as e } from "./escape.js";
import { page, SITE_PATHS } from "./layout.js";
import { count, humanTime, inWords } from "./parts.js";

type Stats = Awaited<ReturnType<typeof proofStats>>;

/** The day of an instant (the instant itself in a tooltip), short enough for a phone's table. */
const dateCell = (iso: string | null) =>
  iso ? `<time datetime="${e(iso)}" title="${e(humanTime(iso))}">${e(iso.slice(0, 10))}</time>` : "–";

/** What the root links to, in words (the JSON root's `links`, lib/v0/service-info.ts). */
const ENDPOINTS: { key: string; label: string; what: string }[] = [
  { key: "location_proofs", label: "List of location proofs", what: "filters, paging; JSON or a web page" },
  { key: "stats", label: "Statistics", what: "counts overall and per chain" },
  { key: "config", label: "Configuration", what: "chains, contracts, schema and limits" },
  { key: "ogc", label: "OGC API – Features", what: "GeoJSON for QGIS, GDAL, OpenLayers; CQL2 filters" },
  {
    key: "health",
    label: "Health",
    what: "database and rate limiter checks, and how fresh each chain's data is",
  },
  {
    key: "openapi",
    label: "OpenAPI document",
    what: "the native API as OpenAPI 3.1 (JSON); read it at API docs",
  },
];

/**
 * GET / for a browser: what the service is, live counts (or a note when the database does not answer), the way to
 * the map and the list, and the API's entry points.
 */
export function homePage(
  info: { name: string; version: string; links: Record<string, string> },
  stats: Stats | undefined,
  networks: readonly { name: string; displayName: string }[],
): string {
  const numbers = stats
    ? `<div class="stats">
<div class="stat"><b>${count(stats.total)}</b><span>location proofs</span></div>
<div class="stat"><b>${count(stats.with_coordinates)}</b><span>with coordinates</span></div>
<div class="stat"><b>${count(stats.revoked)}</b><span>revoked</span></div>
<div class="stat"><b>${dateCell(stats.latest_event)}</b><span>latest event</span></div>
</div>`
    : '<p class="muted">Live counts are unavailable right now: the database did not answer. Please retry shortly.</p>';
  // Every synced network, with or without proofs (then 0), and any other chain the database still holds.
  const displayName = new Map(networks.map((n) => [n.name, n.displayName]));
  const chainNames = stats
    ? [...new Set([...networks.map((n) => n.name), ...Object.keys(stats.by_chain)])]
    : [];
  const chains = chainNames
    .map((name) => {
      const c = stats?.by_chain[name];
      return `<tr><td>${e(displayName.get(name) ?? name)}</td><td>${count(c?.total ?? 0)}</td><td>${count(c?.revoked ?? 0)}</td><td class="nowrap">${dateCell(c?.latest_event ?? null)}</td></tr>`;
    })
    .join("");
  const from = networks.length
    ? `indexed from ${e(inWords(networks.map((n) => n.displayName)))}`
    : "indexed from the chains this deployment syncs";
  const endpoints = ENDPOINTS.filter((x) => info.links[x.key])
    .map((x) => {
      const href = info.links[x.key]!;
      return `<li><a href="${e(href)}">${e(x.label)}</a><span class="muted">${e(x.what)} · <code>${e(new URL(href).pathname)}</code></span></li>`;
    })
    .join("");
  return page({
    title: info.name,
    section: "home",
    lead: `Public, read-only access to <strong>location proofs</strong>: Ethereum Attestation Service attestations that
something was somewhere at some time, ${from}. Browse them on a map, page
through them, or read them as JSON and GeoJSON.`,
    body: `<div class="actions">
<a class="button primary" href="${e(SITE_PATHS.map)}">Open the map of proofs</a>
<a class="button" href="${e(SITE_PATHS.proofs)}">Browse the list</a>
<a class="button" href="${e(SITE_PATHS.docs)}">API documentation</a>
</div>
${numbers}
${
  chains
    ? `<h2>By chain</h2><div class="table-wrap"><table class="data"><thead><tr><th scope="col">Chain</th><th scope="col">Proofs</th><th scope="col">Revoked</th><th scope="col">Latest event</th></tr></thead><tbody>${chains}</tbody></table></div>`
    : ""
}
<h2>For developers</h2>
<ul class="endpoints">${endpoints}</ul>
<p class="muted">Version ${e(info.version)}. Every endpoint answers JSON by default; the list, the OGC API and this
page answer HTML to a browser, or with <code>f=html</code>.</p>`,
  });
}
