import { TRUNCATED_SCHEMA } from "../bounds/limits.js";
import { withDownloads } from "../exports/openapi.js";
import type { Format } from "../http/format.js";
import { baseUrl } from "../http/links.js";
import { jsonSchemaOf, OGC_PROPERTIES } from "../proofs/properties.js";
import { TILE_MATRIX_SET_IDS } from "../tiles/tile-matrix-set.js";
import { CLUSTERS_LAYER, MAX_POINTS, POINTS_LAYER, TILE_FILTER_NAMES } from "../tiles/tile-rules.js";
import { MAX_ZOOM } from "../tiles/web-mercator.js";
import { queryParameters } from "../v0/openapi-params.js";
import { strings } from "../v0/openapi-schemas.js";
import { VERSION } from "../version.js";
import { apiHtml } from "./html/views.js";
import { ITEM_PARAMS, ITEMS_PARAMS } from "./items-params.js";
import { hrefFor, ogcResponse } from "./respond.js";
import { COLLECTIONS, type Collection, MEDIA, OGC_BASE, TILED_COLLECTIONS } from "./vocabulary.js";

const linkList = { type: "array", items: { $ref: "#/components/schemas/link" } };
const crs = { type: "string", description: "CRS URI" };

/** The tile resources' documents (OGC TMS 2.0 JSON, the members this service writes). */
const TILE_SCHEMAS = {
  tileSetItem: {
    type: "object",
    required: ["dataType", "crs", "links"],
    properties: {
      title: { type: "string" },
      dataType: { type: "string", enum: ["map", "vector", "coverage"] },
      crs,
      tileMatrixSetURI: { type: "string", format: "uri" },
      links: linkList,
    },
  },
  tileSetsList: {
    type: "object",
    required: ["tilesets"],
    properties: {
      links: linkList,
      tilesets: { type: "array", items: { $ref: "#/components/schemas/tileSetItem" } },
    },
  },
  tileSet: {
    type: "object",
    required: ["dataType", "crs", "links"],
    properties: {
      ...strings("title", "description"),
      dataType: { type: "string", enum: ["map", "vector", "coverage"] },
      crs,
      tileMatrixSetURI: { type: "string", format: "uri" },
      tileMatrixSetLimits: {
        type: "array",
        items: {
          type: "object",
          required: ["tileMatrix", "minTileRow", "maxTileRow", "minTileCol", "maxTileCol"],
          properties: {
            tileMatrix: { type: "string" },
            minTileRow: { type: "integer", minimum: 0 },
            maxTileRow: { type: "integer", minimum: 0 },
            minTileCol: { type: "integer", minimum: 0 },
            maxTileCol: { type: "integer", minimum: 0 },
          },
        },
      },
      layers: {
        type: "array",
        items: {
          type: "object",
          required: ["id"],
          properties: {
            ...strings("id", "title", "description", "dataType"),
            geometryDimension: { type: "integer" },
            ...strings("featureType", "minTileMatrix", "maxTileMatrix"),
            propertiesSchema: { type: "object" },
          },
        },
      },
      boundingBox: { type: "object" },
      links: linkList,
    },
  },
  tileMatrixSets: {
    type: "object",
    required: ["tileMatrixSets"],
    properties: {
      links: linkList,
      tileMatrixSets: {
        type: "array",
        items: {
          type: "object",
          required: ["links"],
          properties: {
            ...strings("id", "title"),
            uri: { type: "string", format: "uri" },
            crs,
            links: linkList,
          },
        },
      },
    },
  },
  tileMatrixSet: {
    type: "object",
    required: ["crs", "tileMatrices"],
    properties: {
      ...strings("id", "title"),
      uri: { type: "string", format: "uri" },
      crs,
      orderedAxes: { type: "array", items: { type: "string" } },
      wellKnownScaleSet: { type: "string", format: "uri" },
      boundingBox: { type: "object" },
      tileMatrices: {
        type: "array",
        items: {
          type: "object",
          required: [
            "id",
            "scaleDenominator",
            "cellSize",
            "pointOfOrigin",
            "tileWidth",
            "tileHeight",
            "matrixWidth",
            "matrixHeight",
          ],
          properties: {
            id: { type: "string" },
            scaleDenominator: { type: "number" },
            cellSize: { type: "number" },
            cornerOfOrigin: { type: "string", enum: ["topLeft", "bottomLeft"] },
            pointOfOrigin: { type: "array", items: { type: "number" }, minItems: 2, maxItems: 2 },
            tileWidth: { type: "integer", minimum: 1 },
            tileHeight: { type: "integer", minimum: 1 },
            matrixWidth: { type: "integer", minimum: 1 },
            matrixHeight: { type: "integer", minimum: 1 },
          },
        },
      },
      links: linkList,
    },
  },
};

type Param = Record<string, unknown>;

const query = (
  name: string,
  description: string,
  schema: Record<string, unknown>,
  extra: Param = {},
): Param => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
  ...extra,
});

const f = query("f", "Response encoding; overrides the Accept header.", {
  type: "string",
  enum: ["json", "html"],
});

/**
 * Parameters of an items path, generated from the validators that parse them (lib/ogc/items-params.ts: one
 * catalogue for validation and this document), with the collection's geometry and id in their descriptions.
 * Declared inline (not only by $ref) and under the path key relative to the server URL, which is where GDAL's OAPIF
 * driver looks (items-params.ts says why).
 */
const itemsParameters = (c: Collection): Param[] =>
  queryParameters(ITEMS_PARAMS, (description) =>
    description
      .replace(
        "{geometry}",
        c.geometry === "point" ? "the feature's point" : "the bounds of the feature's geometry",
      )
      .replace("{collectionId}", c.id),
  );

const jsonResponse = (description: string, schema: string, type: string = MEDIA.json) => ({
  description,
  content: {
    [type]: { schema: { $ref: `#/components/schemas/${schema}` } },
    [MEDIA.html]: { schema: { type: "string" } },
  },
});
/** A collection's schema or sortables: a JSON Schema (2020-12) document of `what`. */
const jsonSchema = (what: string) =>
  jsonResponse(`JSON Schema (2020-12) of ${what}`, "jsonSchema", MEDIA.schema);

/** An error: the exception object, or — for a client that asked for HTML — a page with the same status. */
const exception = (description: string) => ({
  description,
  content: {
    [MEDIA.json]: { schema: { $ref: "#/components/schemas/exception" } },
    [MEDIA.html]: { schema: { type: "string" } },
  },
});

/**
 * Every status a resource answers GET with besides its 200 (tests/helpers/contract.ts holds each response of the
 * test suite to this list). A path that does not exist is a 404, a method a path does not offer a 405 with Allow.
 */
const errors = {
  "304": { description: "Not modified: the If-None-Match entity tag still matches" },
  "400": exception("Invalid, unknown or repeated parameter"),
  "404": exception("Not found"),
  "429": exception("Too many requests (see Retry-After)"),
  "500": exception("Server error"),
  "503": exception("The database is unavailable (see Retry-After), or the service is misconfigured"),
  "504": exception(
    "A query ran longer than the service's statement budget and the database stopped it: follow the next link instead of a deep offset, or narrow the filter",
  ),
};

const links = () => ({ type: "array", items: { $ref: "#/components/schemas/link" } });

type Op = (
  summary: string,
  operationId: string,
  response: Record<string, unknown>,
  parameters?: Param[],
) => Record<string, unknown>;

/** A name usable in operationIds and schema names: location-proof-shapes → LocationProofShapes. */
const pascal = (id: string) => id.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** The four paths of one collection: its metadata, queryables, items and single items. */
function collectionPaths(c: Collection, op: Op): Record<string, unknown> {
  const name = pascal(c.id);
  const geojson = (schema: string, description: string) => ({
    description,
    headers: {
      "Content-Crs": {
        description:
          "The coordinate reference system of the coordinates, in angle brackets (OGC API - Features Part 2); in JSON-FG that of `place`",
        schema: { type: "string", pattern: "^<http.+>$" },
      },
    },
    content: {
      [MEDIA.geojson]: { schema: { $ref: `#/components/schemas/${schema}${name}` } },
      [MEDIA.html]: { schema: { type: "string" } },
    },
  });
  return {
    [`/collections/${c.id}`]: op(
      `The ${c.id} collection`,
      `describe${name}`,
      jsonResponse("Collection metadata with its extent", "collection"),
    ),
    [`/collections/${c.id}/queryables`]: op(
      `Queryables of ${c.id}`,
      `getQueryables${name}`,
      jsonResponse("JSON Schema of the filterable properties", "queryables", MEDIA.schema),
    ),
    [`/collections/${c.id}/schema`]: op(
      `Schema of ${c.id}'s features`,
      `getSchema${name}`,
      jsonSchema("the features: uid, geometry and every property, with their roles (Part 5)"),
    ),
    [`/collections/${c.id}/sortables`]: op(
      `Sortables of ${c.id}`,
      `getSortables${name}`,
      jsonSchema("the properties sortby may name (Part 5)"),
    ),
    [`/collections/${c.id}/items`]: withDownloads(
      op(
        `Features of ${c.id}`,
        `getFeatures${name}`,
        geojson(
          "featureCollection",
          "A page of features with numberMatched, numberReturned and paging links",
        ),
        itemsParameters(c),
      ),
      exception("Accept names no media type served here"),
    ),
    [`/collections/${c.id}/items/{featureId}`]: op(
      `One feature of ${c.id}`,
      `getFeature${name}`,
      geojson("feature", "The feature"),
      [
        {
          name: "featureId",
          in: "path",
          required: true,
          description: "Attestation uid",
          schema: { type: "string" },
        },
        ...queryParameters(ITEM_PARAMS),
      ],
    ),
  };
}

/**
 * The tile paths of a tiled collection (OGC API - Tiles; lib/tiles/): the tilesets list, the tileset and the tile,
 * with the operationId suffixes of the standard's oas30 class. They take the items' filter parameters (the same
 * definitions), which the tilesets keep in their links.
 */
function tilePaths(c: Collection): Record<string, unknown> {
  const name = pascal(c.id);
  const prefix = `${name.charAt(0).toLowerCase()}${name.slice(1)}.collection.vector`;
  const filters = itemsParameters(c).filter((p) =>
    (TILE_FILTER_NAMES as readonly unknown[]).includes(p.name),
  );
  const tms = {
    name: "tileMatrixSetId",
    in: "path",
    required: true,
    description: "Tile matrix set identifier",
    schema: { type: "string", enum: [...TILE_MATRIX_SET_IDS] },
  };
  const path = (name: string, description: string, schema: Record<string, unknown>): Param => ({
    name,
    in: "path",
    required: true,
    description,
    schema,
  });
  const tilesOp = (summary: string, operationId: string, response: unknown, parameters: Param[]) => ({
    get: {
      summary,
      operationId: `${prefix}.${operationId}`,
      tags: ["OGC API - Tiles"],
      parameters,
      responses: { "200": response, ...errors },
    },
  });
  const base = `/collections/${c.id}/tiles`;
  return {
    [base]: tilesOp(
      `Vector tilesets of ${c.id}`,
      "getTileSetsList",
      jsonResponse("The tilesets, with links to each one and its tile matrix set", "tileSetsList"),
      [f, ...filters],
    ),
    [`${base}/{tileMatrixSetId}`]: tilesOp(
      `The ${c.id} vector tileset`,
      "getTileSet",
      jsonResponse("Tileset metadata with its layers and the tile URL template (rel item)", "tileSet"),
      [tms, f, ...filters],
    ),
    [`${base}/{tileMatrixSetId}/tilejson`]: tilesOp(
      `TileJSON of the ${c.id} vector tileset`,
      "getTileJson",
      {
        description: "TileJSON 3.0.0: the tile URL template with {z}/{x}/{y}, zooms and layers",
        content: {
          [MEDIA.json]: { schema: { type: "object", required: ["tilejson", "tiles", "vector_layers"] } },
        },
      },
      [tms, ...filters],
    ),
    [`/collections/${c.id}/styles`]: {
      get: {
        summary: `Styles of ${c.id} (OGC API - Styles)`,
        operationId: `getStyles${name}`,
        tags: ["OGC API - Styles"],
        parameters: filters,
        responses: {
          "200": {
            description: "The styles and the default style",
            content: { [MEDIA.json]: { schema: { type: "object", required: ["styles"] } } },
          },
          ...errors,
        },
      },
    },
    [`/collections/${c.id}/styles/{styleId}`]: {
      get: {
        summary: `A style of ${c.id}: its MapLibre style sheet`,
        operationId: `getStyle${name}`,
        tags: ["OGC API - Styles"],
        parameters: [path("styleId", "Style identifier", { type: "string", enum: ["proofs"] }), ...filters],
        responses: {
          "200": {
            description: "A MapLibre / Mapbox style sheet (style spec v8) of the clusters and points",
            content: {
              "application/vnd.mapbox.style+json": {
                schema: { type: "object", required: ["version", "sources", "layers"] },
              },
            },
          },
          ...errors,
        },
      },
    },
    [`${base}/{tileMatrixSetId}/{tileMatrix}/{tileCol}/{tileRow}`]: tilesOp(
      `A vector tile of ${c.id}`,
      "getTile",
      {
        description: `A Mapbox Vector Tile: layer ${POINTS_LAYER} (a point per proof) when the tile holds at most ${MAX_POINTS} matching proofs, else layer ${CLUSTERS_LAYER} (clusters with exact counts, or estimated ones marked approximate beyond a filtered tile's row budget); a tile without proofs has both layers empty.`,
        content: { [MEDIA.mvt]: { schema: { type: "string", format: "binary" } } },
      },
      [
        tms,
        path("tileMatrix", `Zoom level z, from 0 to ${MAX_ZOOM}`, {
          type: "string",
          pattern: "^(0|[1-9][0-9]?)$",
        }),
        path("tileCol", "Column x, from 0 to 2^z - 1", { type: "integer", minimum: 0 }),
        path("tileRow", "Row y (0 at the north), from 0 to 2^z - 1", { type: "integer", minimum: 0 }),
        ...filters,
      ],
    ),
  };
}

/** The tile matrix sets (lib/tiles/tile-matrix-set.ts). */
const tileMatrixSetPaths = (op: Op): Record<string, unknown> => ({
  "/tileMatrixSets": op(
    "Tile matrix sets",
    "getTileMatrixSetsList",
    jsonResponse("The tile matrix sets the tiles use", "tileMatrixSets"),
  ),
  "/tileMatrixSets/{tileMatrixSetId}": op(
    "A tile matrix set",
    "getTileMatrixSet",
    jsonResponse("The tile matrix set's definition (OGC TMS 2.0 JSON)", "tileMatrixSet"),
    [
      {
        name: "tileMatrixSetId",
        in: "path",
        required: true,
        description: "Tile matrix set identifier",
        schema: { type: "string", enum: [...TILE_MATRIX_SET_IDS] },
      },
      f,
    ],
  ),
});

/** The feature and feature-collection schemas of one collection: they differ in the geometry. */
function featureSchemas(c: Collection): Record<string, unknown> {
  const name = pascal(c.id);
  return {
    [`feature${name}`]: {
      type: "object",
      required: ["type", "geometry", "properties"],
      properties: {
        type: { type: "string", enum: ["Feature"] },
        id: { type: "string" },
        geometry: {
          $ref: `#/components/schemas/${c.geometry === "point" ? "pointGeometry" : "shapeGeometry"}`,
        },
        ...(c.geometry === "shape"
          ? {
              bbox: {
                type: "array",
                items: { type: "number" },
                minItems: 4,
                maxItems: 4,
                description: "Bounds of a non-point geometry; west > east when it crosses the antimeridian",
              },
            }
          : {}),
        properties: { $ref: "#/components/schemas/properties" },
        links: { type: "array", items: { $ref: "#/components/schemas/link" } },
        ...JSONFG_FEATURE_MEMBERS,
      },
    },
    [`featureCollection${name}`]: {
      type: "object",
      required: ["type", "features"],
      properties: {
        type: { type: "string", enum: ["FeatureCollection"] },
        features: { type: "array", items: { $ref: `#/components/schemas/feature${name}` } },
        links: { type: "array", items: { $ref: "#/components/schemas/link" } },
        timeStamp: { type: "string", format: "date-time" },
        numberMatched: { type: "integer", minimum: 0 },
        numberReturned: { type: "integer", minimum: 0 },
        conformsTo: JSONFG_FEATURE_MEMBERS.conformsTo,
        coordRefSys: JSONFG_FEATURE_MEMBERS.coordRefSys,
      },
    },
  };
}

/**
 * The members JSON-FG adds (lib/jsonfg/; f=jsonfg or profile=jsonfg): its schemas (schemas.opengis.net/json-fg)
 * hold them exactly; here their shape. `geometry` stays the CRS84 GeoJSON geometry; `place` is the geometry in the
 * `crs` asked for, null in CRS84.
 */
const JSONFG_FEATURE_MEMBERS = {
  conformsTo: {
    type: "array",
    items: { type: "string" },
    description: "JSON-FG: the conformance classes of the document (a single feature, or the collection)",
  },
  coordRefSys: { type: "string", description: "JSON-FG: the coordinate reference system of `place`" },
  featureType: { type: "string", enum: ["LocationProof"], description: "JSON-FG: the feature type" },
  time: {
    type: "object",
    nullable: true,
    properties: { timestamp: { type: "string", format: "date-time" } },
    description: "JSON-FG: the event time as an instant, null without one",
  },
  place: {
    type: "object",
    nullable: true,
    required: ["type"],
    description: "JSON-FG: the geometry in the coordinate reference system asked for (crs), null in CRS84",
  },
};

/** GET /api/ogc/api: the OpenAPI 3.0 definition of this interface, with the server URL of the request. */
export function openApiDocument(request: Request) {
  const op: Op = (summary, operationId, response, parameters = [f]) => ({
    get: {
      summary,
      operationId,
      tags: ["OGC API - Features"],
      parameters,
      responses: { "200": response, ...errors },
    },
  });
  return {
    openapi: "3.0.3",
    info: {
      title: "Location Proof Query Service: OGC API - Features and Tiles",
      version: VERSION,
      description:
        "Location proofs as GeoJSON features (OGC API - Features Part 1, with Part 3 queryables and CQL2 text filters) and as Mapbox Vector Tiles (OGC API - Tiles Part 1).",
      license: { name: "See the repository" },
    },
    servers: [{ url: `${baseUrl(request)}${OGC_BASE}` }],
    paths: {
      "/": op(
        "Landing page",
        "getLandingPage",
        jsonResponse("Links to the API definition, conformance and data", "landingPage"),
      ),
      "/conformance": op(
        "Conformance declaration",
        "getConformance",
        jsonResponse("The conformance classes implemented", "confClasses"),
      ),
      "/api": op(
        "This API definition",
        "getApi",
        jsonResponse("OpenAPI 3.0 (JSON) or its HTML rendering", "openapi", MEDIA.openapi),
      ),
      "/collections": op(
        "Feature collections",
        "getCollections",
        jsonResponse("The collections", "collections"),
      ),
      ...Object.assign({}, ...Object.values(COLLECTIONS).map((c) => collectionPaths(c, op))),
      ...Object.assign({}, ...TILED_COLLECTIONS.map((id) => tilePaths(COLLECTIONS[id]))),
      ...tileMatrixSetPaths(op),
    },
    components: {
      schemas: {
        exception: {
          type: "object",
          required: ["code"],
          properties: {
            ...strings("code", "description", "message", "parameter"),
          },
        },
        properties: {
          type: "object",
          description: "The proof's properties, as in the native API (without its geometry and bbox)",
          required: OGC_PROPERTIES.map((q) => q.name),
          properties: {
            ...Object.fromEntries(OGC_PROPERTIES.map((q) => [q.name, jsonSchemaOf(q, "openapi-3.0")])),
            distance: {
              type: "number",
              minimum: 0,
              description:
                "Great-circle distance in metres from `near` to the representative point: only in items asked with near and radius",
            },
            truncated: TRUNCATED_SCHEMA,
          },
        },
        pointGeometry: {
          type: "object",
          nullable: true,
          description: "The representative point [longitude, latitude]; null without valid coordinates",
          required: ["type", "coordinates"],
          properties: {
            type: { type: "string", enum: ["Point"] },
            coordinates: { type: "array", items: { type: "number" }, minItems: 2, maxItems: 2 },
          },
        },
        shapeGeometry: {
          type: "object",
          nullable: true,
          description: "The decoded GeoJSON geometry (RFC 7946); null without valid geographic data",
          required: ["type"],
          properties: { type: { type: "string" } },
        },
        ...Object.assign({}, ...Object.values(COLLECTIONS).map(featureSchemas)),
        landingPage: {
          type: "object",
          required: ["links"],
          properties: { title: { type: "string" }, description: { type: "string" }, links: links() },
        },
        confClasses: {
          type: "object",
          required: ["conformsTo"],
          properties: { conformsTo: { type: "array", items: { type: "string" } } },
        },
        collection: {
          type: "object",
          required: ["id", "links"],
          properties: {
            ...strings("id", "title", "description", "itemType"),
            crs: { type: "array", items: { type: "string" } },
            storageCrs: { type: "string" },
            extent: {
              type: "object",
              properties: {
                spatial: {
                  type: "object",
                  properties: {
                    bbox: { type: "array", items: { type: "array", items: { type: "number" } } },
                  },
                },
                temporal: {
                  type: "object",
                  properties: {
                    interval: {
                      type: "array",
                      items: { type: "array", items: { type: "string", nullable: true } },
                    },
                  },
                },
              },
            },
            links: links(),
          },
        },
        collections: {
          type: "object",
          required: ["links", "collections"],
          properties: {
            links: links(),
            collections: { type: "array", items: { $ref: "#/components/schemas/collection" } },
          },
        },
        queryables: {
          type: "object",
          description: "JSON Schema (2020-12) of the properties a filter may name",
          required: ["type", "properties"],
          properties: { type: { type: "string", enum: ["object"] }, properties: { type: "object" } },
        },
        jsonSchema: {
          type: "object",
          description: "A JSON Schema (2020-12) with links",
          required: ["$schema", "type", "properties"],
          properties: {
            $schema: { type: "string" },
            type: { type: "string", enum: ["object"] },
            properties: { type: "object" },
            links: links(),
          },
        },
        openapi: {
          type: "object",
          required: ["openapi", "info", "paths"],
          properties: { openapi: { type: "string" } },
        },
        link: {
          type: "object",
          required: ["href", "rel"],
          properties: {
            ...strings("href", "rel", "type", "title"),
            templated: { type: "boolean" },
          },
        },
        ...TILE_SCHEMAS,
      },
    },
  };
}

export const apiResource = (request: Request, format: Format) =>
  ogcResponse(
    format,
    openApiDocument(request),
    (doc) => apiHtml(doc as never, hrefFor(request)),
    MEDIA.openapi,
  );
