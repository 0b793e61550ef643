import { tileVersion } from "../data-version/tile-version.js";
import type { Format } from "../http/format.js";
import { absoluteUrl, linkWith } from "../http/links.js";
import { mapLinks } from "../maps/links.js";
import { alternates, type Collection, CRS84, type Link, MEDIA, PATHS, REL } from "../ogc/vocabulary.js";
import { jsonSchemaOf, proofProperty } from "../proofs/properties.js";
import { EPSG_3857, WEB_MERCATOR_QUAD, WEB_MERCATOR_QUAD_URI } from "./tile-matrix-set.js";
import { TILE_ROUTE_PARAMS } from "./tile-params.js";
import {
  CLUSTERS_LAYER,
  MAX_POINTS,
  MEMO_CHARS,
  POINTS_LAYER,
  ROW_BUDGET,
  TILE_FILTER_NAMES,
  TILE_PROPERTY_NAMES,
} from "./tile-rules.js";
import { MAX_LATITUDE, MAX_ZOOM, MIN_ZOOM } from "./web-mercator.js";

/**
 * The tilesets of a collection (OGC API - Tiles, "tilesets-list" and "tileset" classes): one, on WebMercatorQuad,
 * of Mapbox Vector Tiles. The filter parameters a request for these documents carries (chain, datetime, …) are
 * kept, byte for byte, in every link they give, the tile URL template included: a client that opens the tileset of
 * a filtered map gets the tiles of that filter.
 */

/** A link to another of the tileset resources, with the request's filter parameters (never its f, nor its path's). */
const filtered = (request: Request, path: string, set: Record<string, string | undefined> = {}) =>
  linkWith(request, path, { f: undefined, ...set }, ["f", ...TILE_ROUTE_PARAMS]);

/**
 * The tile URL template, with the request's filter parameters and the data version: the tileset's URL with the
 * template's segments joined as text (a URL parser would percent-encode their braces).
 */
export function tileTemplate(request: Request, collection: Collection): string {
  // The data version the tiles are of (lib/data-version/tile-version.ts): the URLs change when the data does.
  const [path = "", query] = filtered(request, PATHS.tileset(collection.id, WEB_MERCATOR_QUAD), {
    v: tileVersion(),
  }).split("?");
  const template = PATHS.tile(collection.id, WEB_MERCATOR_QUAD).slice(
    PATHS.tileset(collection.id, WEB_MERCATOR_QUAD).length,
  );
  return `${path}${template}${query ? `?${query}` : ""}`;
}

/**
 * A resource's self and alternate links in the negotiated format: `href` gives its URL with an `f` (or none, for
 * the JSON self link).
 */
export function selfAndAlternate(
  href: (params: Record<string, string>) => string,
  format: Format,
  title: string,
): Link[] {
  const { selfType, otherType, otherF } = alternates(format, MEDIA.json);
  return [
    { href: href(format === "html" ? { f: "html" } : {}), rel: REL.self, type: selfType, title },
    { href: href({ f: otherF }), rel: REL.alternate, type: otherType, title },
  ];
}

function tilesetLinks(request: Request, collection: Collection, format: Format, self: boolean): Link[] {
  const tileset = PATHS.tileset(collection.id, WEB_MERCATOR_QUAD);
  const links: Link[] = self
    ? selfAndAlternate((params) => filtered(request, tileset, params), format, "This tileset")
    : [{ href: filtered(request, tileset), rel: REL.self, type: MEDIA.json, title: "The tileset" }];
  return [
    ...links,
    {
      href: absoluteUrl(request, PATHS.tileMatrixSet(WEB_MERCATOR_QUAD)),
      rel: REL.tilingScheme,
      type: MEDIA.json,
      title: "The WebMercatorQuad tile matrix set",
    },
    {
      href: tileTemplate(request, collection),
      rel: REL.item,
      type: MEDIA.mvt,
      title: "Mapbox Vector Tiles",
      templated: true,
    },
    ...mapLinks(request, collection.id, true),
  ];
}

const common = (collection: Collection) => ({
  title: `${collection.title} (vector tiles)`,
  dataType: "vector" as const,
  crs: EPSG_3857,
  tileMatrixSetURI: WEB_MERCATOR_QUAD_URI,
});

/** GET …/collections/{id}/tiles */
export function tilesetsDocument(request: Request, collection: Collection, format: Format) {
  const path = PATHS.tilesets(collection.id);
  return {
    links: selfAndAlternate((params) => filtered(request, path, params), format, "The tilesets"),
    tilesets: [{ ...common(collection), links: tilesetLinks(request, collection, format, false) }],
  };
}

const TILE_MATRICES = { minTileMatrix: String(MIN_ZOOM), maxTileMatrix: String(MAX_ZOOM) };

function pointProperties() {
  const properties: Record<string, unknown> = {};
  for (const name of TILE_PROPERTY_NAMES) {
    const q = proofProperty(name)!;
    const schema = jsonSchemaOf(q, "openapi-3.0");
    properties[name] =
      name === "memo"
        ? { ...schema, description: `${q.description} (its first ${MEMO_CHARS} characters)` }
        : schema;
  }
  return { type: "object", properties };
}

/** GET …/collections/{id}/tiles/WebMercatorQuad: the tileset metadata (TMS 2.0 JSON), with its two layers. */
export function tilesetDocument(request: Request, collection: Collection, format: Format) {
  return {
    ...common(collection),
    description:
      `Every proof of the collection that has coordinates, at its representative point. A tile with at most ` +
      `${MAX_POINTS} matching proofs holds each of them in layer ${POINTS_LAYER}; a tile with more holds their ` +
      `clusters in layer ${CLUSTERS_LAYER}: an 8 × 8 grid over the tile, each cell with proofs one feature with ` +
      `their exact count at their mean position (and the proof's uid when the count is 1). Takes the items' ` +
      `filters (${TILE_FILTER_NAMES.join(", ")}). A tile reads at most ${ROW_BUDGET} proofs: beyond that, for a ` +
      `filter other than chain, a crowded cell's count is estimated from a sample and the cluster says approximate.`,
    tileMatrixSetLimits: Array.from({ length: MAX_ZOOM - MIN_ZOOM + 1 }, (_, i) => {
      const last = 2 ** (MIN_ZOOM + i) - 1;
      return {
        tileMatrix: String(MIN_ZOOM + i),
        minTileRow: 0,
        maxTileRow: last,
        minTileCol: 0,
        maxTileCol: last,
      };
    }),
    boundingBox: { lowerLeft: [-180, -MAX_LATITUDE], upperRight: [180, MAX_LATITUDE], crs: CRS84 },
    layers: [
      {
        id: POINTS_LAYER,
        title: "Location proofs",
        description: `One point per proof, in tiles with at most ${MAX_POINTS} matching proofs`,
        dataType: "vector",
        geometryDimension: 0,
        featureType: "LocationProof",
        ...TILE_MATRICES,
        propertiesSchema: pointProperties(),
      },
      {
        id: CLUSTERS_LAYER,
        title: "Clusters of location proofs",
        description: `One point per cell of an 8 × 8 grid over a tile with more than ${MAX_POINTS} matching proofs`,
        dataType: "vector",
        geometryDimension: 0,
        featureType: "LocationProofCluster",
        ...TILE_MATRICES,
        propertiesSchema: {
          type: "object",
          required: ["count"],
          properties: {
            count: { type: "integer", minimum: 1, description: "Number of proofs in the cluster" },
            uid: { type: "string", description: "The proof's uid, when count is 1 and exact" },
            approximate: {
              type: "boolean",
              description: "Present (true) only when count is an estimate from a sample of the cell's proofs",
            },
          },
        },
      },
    ],
    links: [
      ...tilesetLinks(request, collection, format, true),
      {
        href: absoluteUrl(request, PATHS.collection(collection.id)),
        rel: REL.geodata,
        type: MEDIA.json,
        title: "The collection",
      },
    ] satisfies Link[],
  };
}
