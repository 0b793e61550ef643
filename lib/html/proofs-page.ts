import { syncedNetworks } from "../chains/registry.js";
import { getConfig } from "../config.js";
import { linkWith } from "../http/links.js";
import { escapeHtml as e } from "./escape.js";
import { page, SITE_PATHS } from "./layout.js";
import { pager, proofTable, sourceFacets, summaryOf } from "./parts.js";

/** The native list's document (lib/v0/location-proofs.ts) as this page reads it. */
type ListDocument = {
  data: Record<string, unknown>[];
  pagination: {
    total: number;
    limit: number;
    offset: number | null;
    returned: number;
    next: string | null;
    prev: string | null;
  };
};

const PAGE_SIZES = [10, 50, 100, 500, 1000] as const;
/** Each proof's page: the OGC feature page, which shows any proof, revoked or not. */
const proofPage = (uid: string) =>
  `/api/ogc/collections/location-proofs/items/${encodeURIComponent(uid)}?f=html`;

/**
 * GET /api/v0/location-proofs for a browser: the same page of proofs as the JSON, as a table with paging; `start` is
 * the page's place in the list (lib/params/paging.ts).
 */
export function proofsPage(request: Request, path: string, doc: ListDocument, start: number): string {
  const params = new URL(request.url).searchParams;
  const revoked = params.get("includeRevoked") === "true";
  const filters = [...params]
    .filter(([key]) => !["f", "limit", "offset", "cursor", "includeRevoked"].includes(key))
    .map(([key, value]) => `<code>${e(key)}=${e(value)}</code>`);
  const rows = doc.data.map((record) =>
    summaryOf(record, (record.geometry as { type: string } | null | undefined) ?? null),
  );
  return page({
    title: "Location proofs",
    section: "proofs",
    lead: `Newest event first. ${
      revoked ? "Revoked proofs are included (marked)." : "Revoked proofs are left out."
    }${filters.length ? ` Filtered by ${filters.join(", ")}.` : ""}`,
    body: `<div class="actions">
<a class="button primary" href="${e(SITE_PATHS.map)}">Open the map</a>
<a class="button" href="${e(linkWith(request, path, { includeRevoked: revoked ? undefined : "true", offset: undefined, cursor: undefined }))}">${
      revoked ? "Hide revoked proofs" : "Include revoked proofs"
    }</a>
<a class="button" href="${e(linkWith(request, path, { f: "json" }))}" title="rel: alternate · application/json">This page as JSON</a>
</div>
${sourceFacets(request, path, syncedNetworks(getConfig()))}
${pager(request, { ...doc.pagination, offset: start, noun: ["proof", "proofs"], sizes: PAGE_SIZES })}
${proofTable(rows, proofPage)}`,
  });
}
