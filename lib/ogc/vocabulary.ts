import type { Format } from "../http/format.js";

/**
 * The words of OGC API - Features, in one place (pg_featureserv's "vocabulary" split): paths, media types, link
 * relations and conformance classes. Everything else in lib/ogc builds on these names, so a typo cannot make one
 * endpoint disagree with another.
 */

/** Base path of the OGC interface; it carries no version segment (spec, "Versioning"). */
export const OGC_BASE = "/api/ogc";

/**
 * The two collections: the same proofs, properties, queryables, filters and paging; they differ in the feature
 * geometry. `location-proofs` serves the spec's Point (the representative point, what a map of proofs shows and
 * what a Point layer in GDAL or QGIS expects); `location-proof-shapes` serves the decoded shape (Point,
 * LineString, Polygon, …) for map users who want the areas and tracks themselves.
 */
export const COLLECTIONS = {
  "location-proofs": {
    id: "location-proofs",
    title: "Location proofs",
    geometry: "point",
    description:
      "Location proofs: EAS attestations of the location schemas (the v0.1 location-proof schema and the Location " +
      "Protocol's, recognised by their fields), indexed from EVM chains; schema_uid and protocol_version say which. One feature per " +
      "attestation (id = attestation uid), revoked ones included (property revoked). The geometry is the proof's " +
      "representative point (longitude, latitude), null without valid coordinates; the decoded shapes are in " +
      "location-proof-shapes.",
  },
  "location-proof-shapes": {
    id: "location-proof-shapes",
    title: "Location proof shapes",
    geometry: "shape",
    description:
      "The same location proofs with the full decoded geometry (Point, LineString, Polygon, MultiPoint, …), null " +
      "without valid geographic data; bbox filters on the geometry's bounds.",
  },
} as const;

export type CollectionId = keyof typeof COLLECTIONS;

/**
 * The collections served as vector tiles (OGC API - Tiles, lib/tiles/): the points. The shapes collection is not
 * tiled: a tile of shapes would cut them at its edges, and a map of everything wants each proof once, as its point.
 */
export const TILED_COLLECTIONS = ["location-proofs"] as const satisfies readonly CollectionId[];
export type TiledCollectionId = (typeof TILED_COLLECTIONS)[number];
export type Collection = (typeof COLLECTIONS)[CollectionId];
export const COLLECTION_IDS = Object.keys(COLLECTIONS) as CollectionId[];

const collectionPath = (c: CollectionId) => `${OGC_BASE}/collections/${c}`;

export const PATHS = {
  landing: OGC_BASE,
  conformance: `${OGC_BASE}/conformance`,
  api: `${OGC_BASE}/api`,
  collections: `${OGC_BASE}/collections`,
  collection: collectionPath,
  items: (c: CollectionId) => `${collectionPath(c)}/items`,
  queryables: (c: CollectionId) => `${collectionPath(c)}/queryables`,
  schema: (c: CollectionId) => `${collectionPath(c)}/schema`,
  sortables: (c: CollectionId) => `${collectionPath(c)}/sortables`,
  item: (c: CollectionId, uid: string) => `${collectionPath(c)}/items/${encodeURIComponent(uid)}`,
  asset: (file: string) => `${OGC_BASE}/assets/${file}`,
  tilesets: (c: CollectionId) => `${collectionPath(c)}/tiles`,
  tileset: (c: CollectionId, tms: string) => `${collectionPath(c)}/tiles/${tms}`,
  /** The tile URL template: z/x/y in the path, named as OGC API - Tiles names them. */
  tile: (c: CollectionId, tms: string) =>
    `${collectionPath(c)}/tiles/${tms}/{tileMatrix}/{tileCol}/{tileRow}`,
  tileMatrixSets: `${OGC_BASE}/tileMatrixSets`,
  tileMatrixSet: (id: string) => `${OGC_BASE}/tileMatrixSets/${id}`,
} as const;

export const MEDIA = {
  json: "application/json",
  geojson: "application/geo+json",
  html: "text/html",
  openapi: "application/vnd.oai.openapi+json;version=3.0",
  schema: "application/schema+json",
  mvt: "application/vnd.mapbox-vector-tile",
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
  schema: "http://www.opengis.net/def/rel/ogc/1.0/schema",
  sortables: "http://www.opengis.net/def/rel/ogc/1.0/sortables",
  /** a templated link to the tiles of a tileset */
  item: "item",
  tilesetsVector: "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector",
  tilingScheme: "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme",
  tilingSchemes: "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes",
  geodata: "http://www.opengis.net/def/rel/ogc/1.0/geodata",
} as const;

export type Link = { href: string; rel: string; type?: string; title?: string; templated?: boolean };

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

/** The one spatial queryable of a collection: its features' geometry. */
export const GEOMETRY_QUERYABLE = "geometry";
