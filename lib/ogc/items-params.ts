import * as v from "valibot";
import { bboxNumbersParam, CRS_PARAM_SCHEMA, crsParam } from "../crs/params.js";
import { featureFormatParam, itemsFormatParam, profileParam } from "../jsonfg/negotiate.js";
import { FILTER_PARAMS, filterParam } from "../params/filter-params.js";
import { doc } from "../params/grammar.js";
import { QUERYABLE_PARAMS } from "../params/queryable-params.js";
import { MAX_RADIUS_M } from "../proofs/near.js";
import { SORTABLE_PROPERTIES } from "../proofs/properties.js";
import { CQL_LIMITS, FILTER_LANGS } from "./cql2/index.js";
import { OGC_DEFAULT_LIMIT, OGC_MAX_LIMIT } from "./vocabulary.js";

/**
 * `limit`: a whole number ≥ 1. Above the maximum it is served as the maximum (Part 1, 7.15.3, recommendation:
 * clamp rather than refuse), so a client asking for 5000 gets pages of 1000 and next links that keep paging.
 */
export const limitParam = v.pipe(
  v.string(),
  v.regex(/^\d+$/, "limit must be a whole number between 1 and 1000 (larger values are served as 1000)"),
  v.transform((s) => (s.length > 9 ? Number.MAX_SAFE_INTEGER : Number(s))),
  v.minValue(1, "limit must be at least 1"),
  v.transform((n) => Math.min(n, OGC_MAX_LIMIT)),
);

/** The JSON Schema the document states for a comma-separated list (queryParameters writes style form, explode false). */
const SORTBY_SCHEMA = {
  type: "array",
  items: {
    type: "string",
    pattern: `^[+-]?(${SORTABLE_PROPERTIES.map((q) => q.name).join("|")})$|^\\+?distance$`,
  },
};

/**
 * Query parameters of GET /api/ogc/collections/{collectionId}/items; any other parameter is a 400. The OGC OpenAPI
 * document's items parameters are generated from these (lib/ogc/openapi.ts, through lib/v0/openapi-params.ts, as the
 * native document's are), in this order. `{geometry}` and `{collectionId}` in a description are filled in per
 * collection there. Declared inline under every items path, where GDAL's OAPIF driver looks: a parameter named like
 * a feature property (chain, prover, subject) lets GDAL push `-where "chain = 'x'"` to the server, and the `maximum`
 * of limit is the page size GDAL then asks for.
 */
export const ITEMS_PARAMS = {
  f: v.optional(
    doc(
      itemsFormatParam,
      "Response encoding: json (GeoJSON), jsonfg (JSON-FG 1.0, GeoJSON with time, featureType and place), html, or a download of every match (csv, geojsonseq, fgb, parquet: docs/downloads.md); overrides the Accept header.",
    ),
  ),
  profile: v.optional(
    doc(
      profileParam,
      "GeoJSON profile (JSON-FG, JSON-FG in Web APIs): rfc7946 (plain GeoJSON, the default), jsonfg or jsonfg-plus (JSON-FG; geometry stays CRS84 beside place). f=jsonfg is the same as profile=jsonfg.",
    ),
  ),
  limit: v.optional(
    doc(
      limitParam,
      `Page size, default ${OGC_DEFAULT_LIMIT}, at most ${OGC_MAX_LIMIT}. Values above ${OGC_MAX_LIMIT} are served as ${OGC_MAX_LIMIT} (and the links say so).`,
      undefined,
      { type: "integer", minimum: 1, maximum: OGC_MAX_LIMIT, default: OGC_DEFAULT_LIMIT },
    ),
  ),
  offset: filterParam(
    "offset",
    "Number of features to skip; slower the deeper (the next/prev links carry a cursor instead). Not with cursor.",
    undefined,
    { default: 0 },
  ),
  cursor: filterParam(
    "cursor",
    "The opaque position a next/prev link carries (the sort key of the row the page continues from, checksummed). A cursor that was changed, or made for another sortby, is a 400.",
  ),
  bbox: v.optional(
    doc(
      bboxNumbersParam,
      "minLon,minLat,maxLon,maxLat (or the 3D form minLon,minLat,minZ,maxLon,maxLat,maxZ, heights ignored), CRS84 unless bbox-crs names another system (then its lower and upper corners in that system's axis order). minLon > maxLon crosses the antimeridian. Tested against {geometry}; features without geometry match too (OGC API - Features Part 1, /req/core/fc-bbox-response).",
      undefined,
      { type: "array", minItems: 4, maxItems: 6, items: { type: "number" } },
    ),
  ),
  "bbox-crs": v.optional(
    doc(
      crsParam("bbox-crs"),
      "The coordinate reference system of bbox (OGC API - Features Part 2), one of the collection's crs; default CRS84. A box in another system is tested as the CRS84 box that encloses it.",
      undefined,
      CRS_PARAM_SCHEMA,
    ),
  ),
  crs: v.optional(
    doc(
      crsParam("crs"),
      "The coordinate reference system of the features' coordinates (OGC API - Features Part 2), one of the collection's crs, in that system's axis order (latitude first for EPSG:4326); default CRS84. The response's Content-Crs header names it.",
      undefined,
      CRS_PARAM_SCHEMA,
    ),
  ),
  near: filterParam(
    "near",
    "lon,lat in degrees (CRS84): with radius, only features whose representative point lies within radius metres (great-circle distance on the WGS84 mean-radius sphere) of this point; each feature's properties then carry its distance in metres. Features without geometry never match. Needs radius.",
    undefined,
    { type: "array", minItems: 2, maxItems: 2, items: { type: "number" } },
  ),
  radius: filterParam(
    "radius",
    `Metres from near: more than 0, at most ${MAX_RADIUS_M} (half the Earth's circumference). Needs near.`,
    undefined,
    { type: "number", exclusiveMinimum: true, minimum: 0, maximum: MAX_RADIUS_M },
  ),
  datetime: filterParam(
    "datetime",
    "event_timestamp: an instant (2025-01-31T12:00:00Z or a date = the whole UTC day; years 0001-9999), or an interval start/end with '..' for an open end. Ends are inclusive; features without an event time match too (/req/core/fc-time-response).",
  ),
  chain: filterParam("chain", "Network name(s), comma-separated."),
  schema: filterParam("schema", "EAS schema UID(s), comma-separated (property schema_uid)."),
  protocolVersion: filterParam(
    "protocolVersion",
    "Location Protocol version(s) as major.minor, comma-separated (property protocol_version).",
  ),
  locationType: filterParam(
    "locationType",
    "Location type(s) of the protocol's vocabulary, comma-separated (property location_type_normalized).",
  ),
  prover: filterParam("prover", "Address of the proof creator (0x…, any case)."),
  subject: filterParam("subject", "Address the proof is about (0x…, any case)."),
  source: v.optional(
    doc(
      FILTER_PARAMS.source,
      "Where the features come from: onchain (attestations indexed from the chains; the default), offchain (signed off-chain attestations published to this service) or all. A filter, not a collection: both collections hold every record, and their meaning (a point or the shape per record) is the same whatever its source. Each feature's `source` property says which.",
    ),
    "onchain",
  ),
  // Every other queryable with a simple value, by its name (Part 3, queryables as query parameters).
  ...QUERYABLE_PARAMS,
  filter: v.optional(
    doc(
      v.pipe(v.string(), v.minLength(1, "filter must not be empty")),
      `CQL2 over the queryables (see /collections/{collectionId}/queryables): CQL2 text (filter-lang=cql2-text, the default) or CQL2 JSON (filter-lang=cql2-json). At most ${CQL_LIMITS.length} characters, ${CQL_LIMITS.depth} levels of nesting, ${CQL_LIMITS.listItems} items in a list or array, ${CQL_LIMITS.vertices} vertices and ${CQL_LIMITS.arithmetic} arithmetic operators. Three-valued logic: a predicate on a null (a feature without geometry or time) is unknown, and so is its NOT; only true selects. The spatial functions (S_INTERSECTS, S_EQUALS, S_DISJOINT, S_TOUCHES, S_WITHIN, S_OVERLAPS, S_CROSSES, S_CONTAINS) are exact on every geometry (PostGIS); a geometry literal is CRS84, read in the plane of longitude and latitude, and a BBOX with west > east crosses the antimeridian.`,
    ),
  ),
  "filter-lang": v.optional(
    doc(
      v.picklist(FILTER_LANGS, `filter-lang must be ${FILTER_LANGS.join(" or ")}`),
      "Encoding of filter: cql2-text or cql2-json (both parse into one tree, compiled once).",
      undefined,
      { default: "cql2-text" },
    ),
  ),
  "filter-crs": v.optional(
    doc(
      crsParam("filter-crs"),
      "The coordinate reference system of the geometry literals in filter (OGC API - Features Part 3), one of the collection's crs, in that system's axis order (latitude first for EPSG:4326); default CRS84. Each vertex is transformed to CRS84 (an edge is then read in CRS84, not along the projected straight line); a BBOX becomes the CRS84 box that encloses it.",
      undefined,
      CRS_PARAM_SCHEMA,
    ),
  ),
  sortby: v.optional(
    doc(
      v.pipe(v.string(), v.minLength(1, "sortby must not be empty")),
      "A property, '-' for descending (e.g. -event_timestamp), then uid and chain id; further comma-separated properties only after uid, attestation_time or block_number (e.g. block_number,-chain), each order being an index seek. Or distance alone: nearest first (then uid, then chain id), with near and radius.",
      undefined,
      SORTBY_SCHEMA,
    ),
  ),
};

export type ItemsQuery = v.InferOutput<v.ObjectSchema<typeof ITEMS_PARAMS, undefined>>;

/** Query parameters of GET …/items/{uid}: the encoding, the GeoJSON profile and the coordinate system. */
export const ITEM_PARAMS = {
  f: v.optional(
    doc(
      featureFormatParam,
      "Response encoding: json (GeoJSON), jsonfg (JSON-FG 1.0, GeoJSON with time, featureType and place) or html; overrides the Accept header.",
    ),
  ),
  profile: ITEMS_PARAMS.profile,
  crs: ITEMS_PARAMS.crs,
};
