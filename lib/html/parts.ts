import { LOCATION_SCHEMA_UID } from "../chains/schema.js";
import { linkWith } from "../http/links.js";
import { LOCATION_TYPES } from "../location/vocabulary.js";
import { escapeHtml as e } from "./escape.js";

/** Pieces the pages share: times and uids for people, the table of proofs, the pager, link lists. */

/** An ISO timestamp as people read it, to the minute: `2026-11-22 10:15 UTC` (the exact value in a tooltip). */
export function humanTime(iso: unknown): string {
  if (typeof iso !== "string" || iso === "") return "";
  const m = /^(\d{4,}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

export const timeCell = (iso: unknown): string =>
  typeof iso === "string" && iso
    ? `<time datetime="${e(iso)}" title="${e(iso)}">${e(humanTime(iso))}</time>`
    : '<span class="muted">none</span>';

/** A uid or address shortened to its ends (`0x6c1f…a93b`); the whole value stays in the title. */
export const shortHex = (hex: string, head = 6, tail = 4): string =>
  hex.length > head + tail + 1 ? `${hex.slice(0, head)}…${hex.slice(-tail)}` : hex;

export const count = (n: number): string => n.toLocaleString("en-US");

/** What a list of proofs shows of each: the same for the OGC features and the native records. */
export type ProofSummary = {
  uid: string;
  chain: string;
  event_timestamp: string | null;
  memo: string | null;
  location: string | null;
  location_type: string | null;
  revoked: boolean;
  geometry: { type: string } | null;
};

export const summaryOf = (
  properties: Record<string, unknown>,
  geometry: { type: string } | null,
): ProofSummary => ({
  uid: String(properties.uid),
  chain: String(properties.chain),
  event_timestamp: (properties.event_timestamp as string | null) ?? null,
  memo: (properties.memo as string | null) ?? null,
  location: (properties.location as string | null) ?? null,
  location_type: (properties.location_type as string | null) ?? null,
  revoked: properties.revoked === true,
  geometry,
});

/** The uid as a link to the proof's page, shortened, with a copy button that site.js shows and wires. */
export const uidCell = (uid: string, href: string): string =>
  `<a class="uid" href="${e(href)}" title="${e(uid)}">${e(shortHex(uid))}</a><button type="button" class="copy" data-copy="${e(uid)}" aria-label="Copy the full uid" title="Copy the full uid" hidden>Copy</button>`;

const COLUMNS = ["Event time", "Chain", "Memo", "Location type", "Geometry", "Revoked", "Proof"] as const;

/**
 * The table of a page of proofs. Each cell carries its column's name (data-label), so on a narrow screen the rows
 * become cards (site.css) instead of a table broken letter by letter.
 */
export function proofTable(rows: ProofSummary[], itemHref: (uid: string) => string): string {
  if (rows.length === 0) return '<p class="empty">No proofs on this page.</p>';
  const cell = (label: (typeof COLUMNS)[number], html: string, cls = "") =>
    `<td data-label="${label}"${cls ? ` class="${cls}"` : ""}><span class="v">${html}</span></td>`;
  const body = rows
    .map((r) => {
      const memo = r.memo ? e(r.memo) : r.location ? `<span class="muted">${e(r.location)}</span>` : "";
      return `<tr${r.revoked ? ' class="revoked"' : ""}>${[
        cell("Event time", timeCell(r.event_timestamp), "nowrap"),
        cell("Chain", e(r.chain)),
        cell("Memo", memo, "memo"),
        cell("Location type", r.location_type ? `<code>${e(r.location_type)}</code>` : ""),
        cell("Geometry", r.geometry ? e(r.geometry.type) : '<span class="muted">none</span>'),
        cell("Revoked", r.revoked ? '<span class="badge badge-revoked">revoked</span>' : "no"),
        cell("Proof", uidCell(r.uid, itemHref(r.uid)), "nowrap"),
      ].join("")}</tr>`;
    })
    .join("\n");
  return `<div class="table-wrap"><table class="data proofs">
<thead><tr>${COLUMNS.map((c) => `<th scope="col">${c}</th>`).join("")}</tr></thead>
<tbody>
${body}
</tbody></table></div>`;
}

/**
 * Where the reader is in the list ("11–20 of 28"; on a page reached by a cursor, from the position the cursor
 * carried), the previous and next pages, and a page-size selector: a GET form that keeps every other
 * parameter (offset and cursor go back to the start). It works without script; site.js submits it on change.
 */
export function pager(
  request: Request,
  p: {
    offset: number;
    limit: number;
    returned: number;
    total: number;
    next: string | null;
    prev: string | null;
    /** singular and plural: "proof", "proofs" */
    noun: readonly [string, string];
    sizes: readonly number[];
  },
): string {
  const noun = p.total === 1 ? p.noun[0] : p.noun[1];
  const range =
    p.returned === 1 ? count(p.offset + 1) : `${count(p.offset + 1)}–${count(p.offset + p.returned)}`;
  const where =
    p.total === 0
      ? `No ${p.noun[1]} match`
      : p.returned === 0
        ? `Past the end: ${count(p.total)} ${noun} in all`
        : `${range} of ${count(p.total)} ${noun}`;
  const hidden = [...new URL(request.url).searchParams]
    .filter(([key]) => key !== "limit" && key !== "offset" && key !== "cursor")
    .map(([key, value]) => `<input type="hidden" name="${e(key)}" value="${e(value)}">`)
    .join("");
  const sizes = [...new Set([...p.sizes, p.limit])].sort((a, b) => a - b);
  const options = sizes
    .map((n) => `<option value="${n}"${n === p.limit ? " selected" : ""}>${n}</option>`)
    .join("");
  return `<div class="pager">
<span class="count" role="status">${e(where)}</span>
<span class="pages">${
    p.prev ? `<a class="button" rel="prev" href="${e(p.prev)}">← Previous</a>` : ""
  }${p.next ? `<a class="button" rel="next" href="${e(p.next)}">Next →</a>` : ""}</span>
<form class="page-size" method="get">${hidden}<label>Per page <select name="limit">${options}</select></label> <button type="submit">Show</button></form>
</div>`;
}

const FORMAT_NAMES: Record<string, string> = {
  "application/json": "JSON",
  "application/geo+json": "GeoJSON",
  "text/html": "a web page",
  "application/vnd.oai.openapi+json;version=3.0": "OpenAPI 3.0 (JSON)",
  "application/schema+json": "JSON Schema",
};

type Link = { href: string; rel: string; type?: string; title?: string };

/**
 * Links for people: a label in words (an alternate says which format), the relation and media type only in a
 * tooltip. The page's own self link is left out.
 */
export function linkList(links: readonly Link[]): string {
  const items = links
    .filter((l) => l.rel !== "self")
    .map((l) => {
      const format = l.type ? (FORMAT_NAMES[l.type] ?? l.type) : undefined;
      const label =
        l.rel === "alternate"
          ? `${l.title ?? "This page"} as ${format ?? "another format"}`
          : (l.title ?? l.href);
      const tip = `rel: ${l.rel}${l.type ? ` · ${l.type}` : ""}`;
      return `<li><a href="${e(l.href)}" title="${e(tip)}">${e(label)}</a></li>`;
    });
  return items.length ? `<ul class="links">${items.join("")}</ul>` : "";
}

/** Names in running text: "A", "A and B", "A, B and C". */
export function inWords(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** The protocol versions offered as filters (any other can be asked for in the URL). */
const VERSIONS = ["0.1", "0.2", "1.0"];

/**
 * Filters on where a proof comes from — location type (the protocol's vocabulary, matched normalised), protocol
 * version, schema — as links that set or clear one parameter and keep the others (paging starts again). Links, not a
 * form: an empty form field would send an empty parameter, which the API refuses.
 */
export function sourceFacets(
  request: Request,
  path: string,
  networks: readonly { name: string; displayName: string }[] = [],
): string {
  const params = new URL(request.url).searchParams;
  const facet = (label: string, name: string, values: readonly string[], show = (v: string) => v) => {
    const current = params.get(name);
    const link = (value: string | undefined, text: string) => {
      const href = linkWith(request, path, { [name]: value, offset: undefined, cursor: undefined });
      const on = (current ?? undefined) === value;
      return `<a href="${e(href)}"${on ? ' class="on" aria-current="true"' : ""}>${e(text)}</a>`;
    };
    const all = current && !values.includes(current) ? [...values, current] : values;
    return `<li><span class="muted">${label}</span> ${[link(undefined, "any"), ...all.map((v) => link(v, show(v)))].join(" ")}</li>`;
  };
  const networkName = new Map(networks.map((n) => [n.name, n.displayName]));
  return `<ul class="facets">
${
  networks.length > 1
    ? facet(
        "Chain",
        "chain",
        networks.map((n) => n.name),
        (v) => networkName.get(v) ?? v,
      )
    : ""
}
${facet("Location type", "locationType", LOCATION_TYPES)}
${facet("Protocol version", "protocolVersion", VERSIONS)}
${facet("Schema", "schema", [LOCATION_SCHEMA_UID], (v) => (v === LOCATION_SCHEMA_UID ? "v0.1" : shortHex(v)))}
</ul>`;
}
