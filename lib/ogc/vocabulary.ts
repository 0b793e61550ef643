import type { Format } from "./format.js";

/**
 * The words of OGC API - Features, in one place (pg_featureserv's "vocabulary" split): paths, media types, link
 * relations and conformance classes. Everything else in lib/ogc builds on these names, so a typo cannot make one
 * endpoint disagree with another.
 */

/** Base path of the OGC interface; it carries no version segment (spec, "Versioning"). */
export const OGC_BASE = "/api/ogc";
export const COLLECTION_ID = "location-proofs";

export const PATHS = {
  landing: OGC_BASE,
  conformance: `${OGC_BASE}/conformance`,
  api: `${OGC_BASE}/api`,
  collections: `${OGC_BASE}/collections`,
  collection: `${OGC_BASE}/collections/${COLLECTION_ID}`,
  items: `${OGC_BASE}/collections/${COLLECTION_ID}/items`,
  queryables: `${OGC_BASE}/collections/${COLLECTION_ID}/queryables`,
  item: (uid: string) => `${OGC_BASE}/collections/${COLLECTION_ID}/items/${encodeURIComponent(uid)}`,
  asset: (file: string) => `${OGC_BASE}/assets/${file}`,
} as const;

export const MEDIA = {
  json: "application/json",
  geojson: "application/geo+json",
  html: "text/html",
  openapi: "application/vnd.oai.openapi+json;version=3.0",
  schema: "application/schema+json",
} as const;

/** Link relations (IANA registered, plus the OGC ones, which are URIs). */
export const REL = {
  self: "self",
  alternate: "alternate",
  serviceDesc: "service-desc",
  serviceDoc: "service-doc",
  conformance: "conformance",
  data: "data",
  items: "items",
  collection: "collection",
  next: "next",
  prev: "prev",
  queryables: "http://www.opengis.net/def/rel/ogc/1.0/queryables",
} as const;

export type Link = { href: string; rel: string; type?: string; title?: string };

/** The CRS every geometry is in: WGS 84 longitude/latitude (GeoJSON's RFC 7946 order). */
export const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";

/** The trs of the temporal extent: the Gregorian calendar (OGC API - Features Part 1, 7.14.4). */
export const GREGORIAN = "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian";

/** OGC items page size: the default, and the maximum (larger limits are served as this). */
export const OGC_DEFAULT_LIMIT = 10;
export const OGC_MAX_LIMIT = 1000;

/**
 * The media types of a resource's self and alternate links and the `f` that selects the alternate: HTML's
 * alternate is the JSON encoding (`jsonType`: JSON, or GeoJSON for features), and the other way round.
 */
export function alternates(
  format: Format,
  jsonType: string = MEDIA.json,
): { selfType: string; otherType: string; otherF: Format } {
  return format === "html"
    ? { selfType: MEDIA.html, otherType: jsonType, otherF: "json" }
    : { selfType: jsonType, otherType: MEDIA.html, otherF: "html" };
}
