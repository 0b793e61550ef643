import { withDownloads } from "../exports/openapi.js";
import { FORMAT_ONLY } from "../http/format.js";
import { baseUrl } from "../http/links.js";
import { uidParam } from "../params/grammar.js";
import { PROOF_PROPERTIES } from "../proofs/properties.js";
import { SERVICE_NAME, VERSION } from "../version.js";
import { LIST_PARAMS, STATS_PARAMS } from "./list-params.js";
import { parameterSchema, queryParameters } from "./openapi-params.js";
import { NATIVE_SCHEMAS } from "./openapi-schemas.js";
import { DOCS_PATH, LIST_PATH, OPENAPI_PATH, RECORDS_PATH } from "./paths.js";

/** The media type of this document (the OpenAPI Initiative's registered type). */
export const OPENAPI_MEDIA_TYPE = "application/vnd.oai.openapi+json;version=3.1";

type Json = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const JSON_TYPE = "application/json";
const HTML_TYPE = "text/html";

/** A 200 with these contents: cacheable (a strong ETag) unless `cached` is false. */
const success = (description: string, content: Json, cached = true) => ({
  description,
  headers: {
    "Cache-Control": header("Cache-Control"),
    ...(cached ? { ETag: header("ETag") } : {}),
    "Access-Control-Allow-Origin": header("Access-Control-Allow-Origin"),
  },
  content,
});

/** A 200 whose body is JSON of `schema` (and, where negotiated, the same resource as an HTML page). */
const ok = (
  description: string,
  schema: string,
  options: { html?: boolean; cached?: boolean; example?: unknown } = {},
) =>
  success(
    description,
    {
      [JSON_TYPE]: { schema: ref(schema), ...(options.example ? { example: options.example } : {}) },
      ...(options.html ? { [HTML_TYPE]: { schema: ref("HtmlPage") } } : {}),
    },
    options.cached !== false,
  );

/** Every error is the one error object — or, for a client that asked for HTML, a page with the same status. */
const error = (description: string, example: Json, headers: Json = {}) => ({
  description,
  headers: { "Cache-Control": header("Cache-Control"), ...headers },
  content: {
    [JSON_TYPE]: { schema: ref("Error"), example: { ...example, description: example.message } },
    [HTML_TYPE]: { schema: ref("HtmlPage") },
  },
});

const ERRORS = {
  "400": error("An invalid, unknown or repeated query parameter (named in `parameter`)", {
    error: "Bad Request",
    code: "InvalidParameterValue",
    message: "limit must be at most 1000",
    parameter: "limit",
  }),
  "429": error(
    "Too many requests from this client (RATE_LIMIT_PER_MINUTE a minute)",
    {
      error: "Too Many Requests",
      code: "TooManyRequests",
      message:
        "Too many requests: the limit is 100 requests per 60 seconds per client. Retry after 12 seconds.",
    },
    { "Retry-After": { ...header("Retry-After"), required: true } },
  ),
  "500": error("An internal error; the body never carries internals", {
    error: "Internal Server Error",
    code: "InternalError",
    message: "The server could not complete the request. Please try again later.",
  }),
  "503": error(
    "The database is unavailable (retry after Retry-After), the request did not finish within the service's time budget for one request (code RequestBudgetExceeded, REQUEST_BUDGET_MS; retry after Retry-After), or the service is misconfigured (the setting is named)",
    {
      error: "Service Unavailable",
      code: "ServiceUnavailable",
      message: "The database is unavailable; please retry shortly.",
    },
    { "Retry-After": header("Retry-After") },
  ),
  "504": error(
    "A database statement ran longer than the service's budget (DATABASE_STATEMENT_TIMEOUT_MS) and the database stopped it; the database is up. Retrying the same request takes as long: follow the `next` link instead of a deep `offset`, or narrow the filter",
    {
      error: "Gateway Timeout",
      code: "QueryTimeout",
      message:
        "The query ran longer than this service allows a database statement (4000 ms), and the database stopped it. The database is available; the same request would take as long again. To page deep into a result, follow the `next` link (cursor paging) instead of a large `offset`; otherwise narrow the filter (bbox, datetime, chain, prover).",
    },
  ),
};

const NOT_MODIFIED = {
  "304": {
    description: "Not modified: the If-None-Match ETag still matches",
    headers: { ETag: header("ETag") },
  },
};

const operation = (
  operationId: string,
  tag: string,
  summary: string,
  description: string,
  parameters: Json[],
  responses: Json,
) => ({
  get: { operationId, tags: [tag], summary, description, parameters, responses: { ...responses, ...ERRORS } },
});

/**
 * The same operation under the name Astral's documentation uses (/api/v0/location-records…): the twin's
 * parameters, responses and examples (its links on this path), another operationId (each must be unique).
 */
function alias(twin: ReturnType<typeof operation>, operationId: string, twinPath: string) {
  const get = JSON.parse(JSON.stringify(twin.get).replaceAll(`${LIST_PATH}?`, `${RECORDS_PATH}?`));
  return {
    get: {
      ...get,
      operationId,
      tags: ["location records (aliases)"],
      description: `The same operation as \`${twinPath}\`, under the path Astral's documentation names; the same answers (links keep the path used). ${get.description}`,
    },
  };
}

/** POST /api/v0/location-records (lib/offchain/publish.ts): its refusals, each with its own code. */
function publishOperation() {
  const refusal = (code: string, message: string) => ({ error: "Unprocessable Content", code, message });
  const created = (description: string) => ({
    description,
    headers: {
      "Cache-Control": header("Cache-Control"),
      "Access-Control-Allow-Origin": header("Access-Control-Allow-Origin"),
    },
    content: { [JSON_TYPE]: { schema: ref("OffchainLocationRecord") } },
  });
  return {
    operationId: "publishOffchainRecord",
    tags: ["off-chain records"],
    summary: "Publish a signed off-chain attestation",
    description:
      "One EAS off-chain attestation (offchain version 1 or 2) in the EAS SDK's shapes: the object signOffchainAttestation returns, the `{ sig, signer }` package, or the zipped package behind an easscan link (a JSON string, `{ attestation }`, `{ url }`, or a text/plain body). Verified before it is stored: the signature recovers the attester (the package's signer), the uid is the message's, the domain is a configured network's EAS, the schema a location schema indexed there, the time not in the future beyond OFFCHAIN_MAX_CLOCK_SKEW_SECONDS, not expired. PUBLISH_MODE, per-client and per-attester limits apply (docs/offchain.md).",
    requestBody: {
      required: true,
      content: {
        [JSON_TYPE]: { schema: { type: ["object", "string"] } },
        "text/plain": { schema: { type: "string" } },
      },
    },
    responses: {
      "201": created("Verified and stored: the record"),
      "200": created("Already held (publishing is idempotent): the record"),
      "403": error(
        "Publishing is off here (PublishingDisabled), or the attester is not on the allow-list (AttesterNotAllowed)",
        {
          error: "Forbidden",
          code: "PublishingDisabled",
          message: "This deployment does not take publications (PUBLISH_MODE=off)",
        },
      ),
      "409": error("The uid is held for another attester's attestation (UidConflict)", {
        error: "Conflict",
        code: "UidConflict",
        message: "The uid is held for an attestation by another attester",
      }),
      "413": error("The body is larger than PUBLISH_MAX_BYTES", {
        error: "Payload Too Large",
        code: "PayloadTooLarge",
        message: "Request body exceeds 65536 bytes",
        parameter: "body",
      }),
      "415": error("Neither JSON nor text/plain", {
        error: "Unsupported Media Type",
        code: "UnsupportedMediaType",
        message: "Send application/json (or text/plain for a zipped package)",
      }),
      "422": error(
        "Refused: InvalidSignature, UidMismatch, UnknownNetwork, UnknownSchema, AttestationInFuture, AttestationExpired, UndecodableData or UnverifiableAstralAttestation (the Astral SDK's off-chain attestation, which cannot be verified)",
        refusal("InvalidSignature", "The signature was not made by the signer over this attestation"),
      ),
      ...ERRORS,
      "400": error(
        "A body that is no signed off-chain attestation (InvalidRequestBody, naming the field), or an offchain version other than 1 and 2 (UnsupportedOffchainVersion)",
        {
          error: "Bad Request",
          code: "InvalidRequestBody",
          message: "body.message.time: must be a whole number (decimal)",
          parameter: "body.message.time",
        },
      ),
    },
  };
}

const exampleProof = Object.fromEntries(PROOF_PROPERTIES.map((q) => [q.name, q.example]));

/** The native API (/, /health, /docs, /api/v0) as OpenAPI 3.1, its server URL that of the request. */
export function nativeOpenApiDocument(request: Request) {
  const base = baseUrl(request);
  const uid = {
    name: "uid",
    in: "path",
    required: true,
    description: "Attestation uid, 0x + 64 hex digits, any case",
    schema: parameterSchema(uidParam),
  };
  const list = withDownloads(
    operation(
      "listLocationProofs",
      "location proofs",
      "List location proofs",
      "Newest event_timestamp first (then uid, then chain id; proofs without an event time last). All filters combine with AND; revoked proofs are left out unless includeRevoked=true. Page by following pagination.next/prev (cursor links keeping every other parameter); offset also works.",
      queryParameters(LIST_PARAMS),
      {
        "200": ok("A page of proofs with the total and paging links", "LocationProofList", {
          html: true,
          example: {
            data: [exampleProof],
            pagination: {
              total: 7,
              limit: 1,
              offset: 0,
              returned: 1,
              next: `${base}/api/v0/location-proofs?limit=1&cursor=WzEsIm4iXQ.GGp3RpteiAPS`,
              prev: null,
            },
          },
        }),
        ...NOT_MODIFIED,
      },
    ),
    error("Accept names no media type served here", {
      error: "Not Acceptable",
      code: "NotAcceptable",
      message: "None of the media types in Accept is served here.",
      parameter: "Accept",
    }),
  );
  const stats = operation(
    "getStats",
    "location proofs",
    "Statistics",
    "Counted from the data: total (revoked included), active, with coordinates, the last 24 h / 7 d / 30 d by event time, overall and per chain; per schema and per protocol version. With schema, protocolVersion or locationType, the same figures for the proofs they match.",
    queryParameters(STATS_PARAMS),
    {
      "200": ok("Counts overall, per chain, per schema and per protocol version", "Stats"),
      ...NOT_MODIFIED,
    },
  );
  const proof = operation(
    "getLocationProof",
    "location proofs",
    "One location proof",
    "By attestation uid, revoked or not (see revoked and revocation_time).",
    [uid],
    {
      "200": success("The proof: an on-chain attestation, or else an off-chain record with this uid", {
        [JSON_TYPE]: {
          schema: { anyOf: [ref("LocationProof"), ref("OffchainLocationRecord")] },
          example: exampleProof,
        },
      }),
      ...NOT_MODIFIED,
      "404": error("No proof has this uid", {
        error: "Not Found",
        code: "NotFound",
        message: `No location proof with uid ${exampleProof.uid}`,
      }),
    },
  );
  const config = operation(
    "getConfig",
    "location proofs",
    "Chains, contracts, schema and limits",
    "The chains the service knows (each enabled one with its sync freshness) and the API's limits.",
    queryParameters({}),
    { "200": ok("The configuration", "Config"), ...NOT_MODIFIED },
  );
  return {
    openapi: "3.1.0",
    info: {
      title: `${SERVICE_NAME}: native API`,
      version: VERSION,
      summary: "Public, read-only location proofs (EAS attestations) indexed from EVM chains.",
      description: [
        "JSON by default; `/` and the list answer a web page to a browser (`Accept` preferring text/html, or `f=html`).",
        "Every error is one object: `{ error, code, message, description, parameter? }`. Unknown or repeated query parameters are a 400; a path that does not exist is a 404 `Cannot GET <path>`; a method a path does not offer is a 405 with `Allow`. HEAD answers as GET without a body; OPTIONS is the CORS preflight (204).",
        "Public GET responses are cacheable for 15 s at a CDN (then 15 s more while it revalidates) and carry an ETag; the lists and the proofs take theirs from the data's version, so an If-None-Match (or If-Modified-Since) that still holds is a 304 that reads nothing else; errors and /health are no-store. CORS allows any origin.",
        `The OGC API - Features interface describes itself: [its OpenAPI 3.0 document](${base}/api/ogc/api), rendered at [its API page](${base}/api/ogc/api?f=html).`,
        `GraphQL over the same proofs, with the list's filters: [${base}/graphql](${base}/graphql) (GET and POST, GraphQL over HTTP; GraphiQL for a browser; the schema by introspection).`,
        `For AI agents, the Model Context Protocol: [${base}/mcp](${base}/mcp) (POST, Streamable HTTP, stateless), whose tools search the proofs with this list's filters, fetch one, read the statistics and the configured networks, answering as the endpoints below do.`,
      ].join("\n\n"),
    },
    servers: [{ url: base }],
    externalDocs: {
      description: "The OGC API - Features interface of the same proofs",
      url: `${base}/api/ogc`,
    },
    tags: [
      { name: "location proofs", description: "The native API, /api/v0" },
      {
        name: "location records (aliases)",
        description: `${RECORDS_PATH}, ${RECORDS_PATH}/{uid}, /stats and /config: the same operations as their location-proofs twins, under the names Astral's documentation uses`,
      },
      {
        name: "off-chain records",
        description: "Signed EAS off-chain attestations, published here and verified (docs/offchain.md)",
      },
      { name: "service", description: "What the service is, whether it is healthy, and its documentation" },
    ],
    paths: {
      [LIST_PATH]: list,
      [`${LIST_PATH}/stats`]: stats,
      [`${LIST_PATH}/{uid}`]: proof,
      "/api/v0/config": config,
      [RECORDS_PATH]: { ...alias(list, "listLocationRecords", LIST_PATH), post: publishOperation() },
      [`${RECORDS_PATH}/{uid}/signed`]: operation(
        "getSignedOffchainRecord",
        "off-chain records",
        "An off-chain record's signed original",
        "The EAS SDK's shareable package `{ sig, signer }` (JSON, big integers as decimal strings), as published: verify it with the SDK or any EIP-712 library.",
        [uid],
        {
          "200": success("The signed package", {
            [JSON_TYPE]: { schema: { type: "object", required: ["sig", "signer"] } },
          }),
          ...NOT_MODIFIED,
          "404": error("No off-chain record has this uid", {
            error: "Not Found",
            code: "NotFound",
            message: `No off-chain location record with uid ${exampleProof.uid}`,
          }),
        },
      ),
      [`${RECORDS_PATH}/stats`]: alias(stats, "getLocationRecordsStats", `${LIST_PATH}/stats`),
      [`${RECORDS_PATH}/config`]: alias(config, "getLocationRecordsConfig", "/api/v0/config"),
      [`${RECORDS_PATH}/{uid}`]: alias(proof, "getLocationRecord", `${LIST_PATH}/{uid}`),
      [OPENAPI_PATH]: operation(
        "getOpenApi",
        "service",
        "This document",
        "The native API as OpenAPI 3.1.",
        queryParameters({}),
        {
          "200": success("This OpenAPI document", {
            [OPENAPI_MEDIA_TYPE]: { schema: { type: "object", required: ["openapi", "info", "paths"] } },
          }),
          ...NOT_MODIFIED,
        },
      ),
      "/": operation(
        "getRoot",
        "service",
        "The service's name, version and links",
        "JSON, or the home page for a browser (with live counts).",
        queryParameters(FORMAT_ONLY),
        {
          "200": ok("Name, version and the absolute URL of every endpoint group", "Root", { html: true }),
          ...NOT_MODIFIED,
        },
      ),
      "/health": operation(
        "getHealth",
        "service",
        "Health and data freshness",
        "200 ok; 200 degraded when an enabled chain has not synced for longer than SYNC_STALE_AFTER_SECONDS (its data is behind, the service answers); 503 only when the service cannot answer (the database). Never cached.",
        queryParameters({}),
        {
          "200": ok("The checks: database, rate limiter, per-chain sync freshness", "Health", {
            cached: false,
          }),
        },
      ),
      [DOCS_PATH]: operation(
        "getDocs",
        "service",
        "This document, rendered",
        "An interactive page (Swagger UI, served from this origin) over this document.",
        queryParameters({}),
        {
          "200": success("The page", { [HTML_TYPE]: { schema: ref("HtmlPage") } }),
          ...NOT_MODIFIED,
        },
      ),
    },
    components: {
      schemas: NATIVE_SCHEMAS,
      headers: {
        "Cache-Control": {
          description:
            "public, max-age=0, s-maxage=15, stale-while-revalidate=15 on public 200s (with CDN-Cache-Control: max-age=15, stale-while-revalidate=15); public, max-age=31536000, immutable on a tile whose URL carries the data version v; no-store on errors and /health",
          required: true,
          schema: { type: "string" },
        },
        ETag: {
          description:
            "A validator of the response (on the lists and the proofs: the data's version, the representation and the body); send it back in If-None-Match",
          required: true,
          schema: { type: "string" },
        },
        "Access-Control-Allow-Origin": {
          description: "Any origin may read public responses",
          required: true,
          schema: { const: "*" },
        },
        "Retry-After": {
          description: "Seconds to wait before retrying",
          schema: { type: "string", pattern: "^[0-9]+$" },
        },
      },
    },
  };
}
