import { CHAIN_NAMES } from "../chains/registry.js";
import { baseUrl } from "../http/links.js";
import { SORTABLE } from "../proofs/sort.js";
import { VERSION } from "../version.js";
import { CQL_LIMITS, FILTER_LANGS } from "./cql2/index.js";
import type { Format } from "./format.js";
import { apiHtml } from "./html/views.js";
import { hrefFor, ogcResponse } from "./respond.js";
import { COLLECTION_ID, CRS84, MEDIA, OGC_BASE, OGC_DEFAULT_LIMIT, OGC_MAX_LIMIT } from "./vocabulary.js";

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

const address = { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" };

/**
 * Parameters of the items path. Declared inline (not only by $ref) and under the path key relative to the server
 * URL, which is where GDAL's OAPIF driver looks: a parameter named like a feature property (chain, prover, subject)
 * lets GDAL push `-where "chain = 'x'"` to the server as `chain=x` instead of filtering every feature locally.
 */
const ITEMS_PARAMETERS: Param[] = [
  f,
  query(
    "limit",
    `Page size, default ${OGC_DEFAULT_LIMIT}. Values above ${OGC_MAX_LIMIT} are served as ${OGC_MAX_LIMIT} (and the links say so).`,
    { type: "integer", minimum: 1, default: OGC_DEFAULT_LIMIT },
  ),
  query("offset", "Number of features to skip (the next/prev links carry it).", {
    type: "integer",
    minimum: 0,
    default: 0,
  }),
  query(
    "bbox",
    "minLon,minLat,maxLon,maxLat (or the 3D form minLon,minLat,minZ,maxLon,maxLat,maxZ, heights ignored), CRS84. minLon > maxLon crosses the antimeridian. Features without geometry never match.",
    { type: "array", minItems: 4, maxItems: 6, items: { type: "number" } },
    { style: "form", explode: false },
  ),
  query("bbox-crs", "Only CRS84 is served.", { type: "string", enum: [CRS84] }),
  query(
    "datetime",
    "event_timestamp: an instant (2025-01-31T12:00:00Z or a date = the whole UTC day), or an interval start/end with '..' for an open end. Ends are inclusive; proofs without an event time never match.",
    { type: "string" },
  ),
  query(
    "chain",
    "Network name(s), comma-separated.",
    { type: "array", items: { type: "string", enum: [...CHAIN_NAMES] } },
    { style: "form", explode: false },
  ),
  query("prover", "Address of the proof creator (0x…, any case).", address),
  query("subject", "Address the proof is about (0x…, any case).", address),
  query(
    "filter",
    `CQL2 text over the queryables (see /collections/${COLLECTION_ID}/queryables); at most ${CQL_LIMITS.length} characters.`,
    { type: "string" },
  ),
  query("filter-lang", "Language of filter.", {
    type: "string",
    enum: [...FILTER_LANGS],
    default: "cql2-text",
  }),
  query("filter-crs", "CRS of geometry literals in filter; only CRS84.", { type: "string", enum: [CRS84] }),
  query(
    "sortby",
    "Comma-separated properties, '-' for descending (e.g. -event_timestamp).",
    {
      type: "array",
      items: { type: "string", pattern: `^[+-]?(${Object.keys(SORTABLE).join("|")})$` },
    },
    { style: "form", explode: false },
  ),
];

const jsonResponse = (description: string, type: string = MEDIA.json) => ({
  description,
  content: { [type]: { schema: { type: "object" } }, [MEDIA.html]: { schema: { type: "string" } } },
});

const errors = {
  "400": {
    description: "Invalid or unknown parameter",
    content: { [MEDIA.json]: { schema: { $ref: "#/components/schemas/exception" } } },
  },
  "404": {
    description: "Not found",
    content: { [MEDIA.json]: { schema: { $ref: "#/components/schemas/exception" } } },
  },
  "500": {
    description: "Server error",
    content: { [MEDIA.json]: { schema: { $ref: "#/components/schemas/exception" } } },
  },
};

/** GET /api/ogc/api: the OpenAPI 3.0 definition of this interface, with the server URL of the request. */
export function openApiDocument(request: Request) {
  const op = (
    summary: string,
    operationId: string,
    response: Record<string, unknown>,
    parameters: Param[] = [f],
  ) => ({
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
      title: "Location Proof Query Service: OGC API - Features",
      version: VERSION,
      description:
        "Location proofs as GeoJSON features (OGC API - Features Part 1, with Part 3 queryables and CQL2 text filters).",
      license: { name: "See the repository" },
    },
    servers: [{ url: `${baseUrl(request)}${OGC_BASE}` }],
    paths: {
      "/": op(
        "Landing page",
        "getLandingPage",
        jsonResponse("Links to the API definition, conformance and data"),
      ),
      "/conformance": op(
        "Conformance declaration",
        "getConformance",
        jsonResponse("The conformance classes implemented"),
      ),
      "/api": op(
        "This API definition",
        "getApi",
        jsonResponse("OpenAPI 3.0 (JSON) or its HTML rendering", MEDIA.openapi),
      ),
      "/collections": op("Feature collections", "getCollections", jsonResponse("The collections")),
      [`/collections/${COLLECTION_ID}`]: op(
        "The location-proofs collection",
        "describeCollection",
        jsonResponse("Collection metadata with its extent"),
      ),
      [`/collections/${COLLECTION_ID}/queryables`]: op(
        "Queryables of location-proofs",
        "getQueryables",
        jsonResponse("JSON Schema of the filterable properties", MEDIA.schema),
      ),
      [`/collections/${COLLECTION_ID}/items`]: op(
        "Features of location-proofs",
        "getFeatures",
        {
          description: "A page of features with numberMatched, numberReturned and paging links",
          content: {
            [MEDIA.geojson]: { schema: { $ref: "#/components/schemas/featureCollection" } },
            [MEDIA.html]: { schema: { type: "string" } },
          },
        },
        ITEMS_PARAMETERS,
      ),
      [`/collections/${COLLECTION_ID}/items/{featureId}`]: op(
        "One feature",
        "getFeature",
        {
          description: "The feature",
          content: {
            [MEDIA.geojson]: { schema: { $ref: "#/components/schemas/feature" } },
            [MEDIA.html]: { schema: { type: "string" } },
          },
        },
        [
          {
            name: "featureId",
            in: "path",
            required: true,
            description: "Attestation uid",
            schema: { type: "string" },
          },
          f,
        ],
      ),
    },
    components: {
      schemas: {
        exception: {
          type: "object",
          required: ["code"],
          properties: {
            code: { type: "string" },
            description: { type: "string" },
            message: { type: "string" },
            parameter: { type: "string" },
          },
        },
        feature: {
          type: "object",
          required: ["type", "geometry", "properties"],
          properties: {
            type: { type: "string", enum: ["Feature"] },
            id: { type: "string" },
            geometry: { type: "object", nullable: true },
            properties: { type: "object", nullable: true },
            links: { type: "array", items: { $ref: "#/components/schemas/link" } },
          },
        },
        featureCollection: {
          type: "object",
          required: ["type", "features"],
          properties: {
            type: { type: "string", enum: ["FeatureCollection"] },
            features: { type: "array", items: { $ref: "#/components/schemas/feature" } },
            links: { type: "array", items: { $ref: "#/components/schemas/link" } },
            timeStamp: { type: "string", format: "date-time" },
            numberMatched: { type: "integer", minimum: 0 },
            numberReturned: { type: "integer", minimum: 0 },
          },
        },
        link: {
          type: "object",
          required: ["href", "rel"],
          properties: {
            href: { type: "string" },
            rel: { type: "string" },
            type: { type: "string" },
            title: { type: "string" },
          },
        },
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
