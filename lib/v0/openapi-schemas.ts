import { TRUNCATED_SCHEMA } from "../bounds/limits.js";
import type { ErrorCode } from "../http/errors.js";
import { jsonSchemaOf, PROOF_PROPERTIES } from "../proofs/properties.js";

/**
 * The response schemas of the native API's OpenAPI 3.1 document (JSON Schema 2020-12). The proof record comes from
 * the property catalogue (lib/proofs/properties.ts); the rest mirror lib/v0/service-info.ts, lib/proofs/stats.ts
 * and lib/http/respond.ts. Objects are closed (`additionalProperties: false`) so that the contract tests
 * (tests/helpers/contract.ts) catch a member added to a response and not to its document.
 */

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const closed = (properties: Record<string, Json>, description?: string, optional: string[] = []): Json => ({
  type: "object",
  ...(description ? { description } : {}),
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
  additionalProperties: false,
});
const int = (description?: string): Json => ({
  type: "integer",
  minimum: 0,
  ...(description ? { description } : {}),
});
const nullable = (type: string, extra: Json = {}): Json => ({ type: [type, "null"], ...extra });
const time = (description?: string): Json =>
  nullable("string", { format: "date-time", ...(description ? { description } : {}) });
const url = { type: "string", format: "uri" };
/** Properties `names`, each a string. */
export const strings = (...names: string[]): Record<string, Json> =>
  Object.fromEntries(names.map((name) => [name, { type: "string" }]));

/** The codes of the one error type (lib/http/errors.ts); the list below must name each of them. */
const ERROR_CODES: Record<ErrorCode, true> = {
  InvalidParameterValue: true,
  UnknownParameter: true,
  MissingParameter: true,
  InvalidRequestBody: true,
  InvalidHeader: true,
  MalformedRequest: true,
  RequestTimeout: true,
  PayloadTooLarge: true,
  URITooLong: true,
  RequestHeaderFieldsTooLarge: true,
  Unauthorized: true,
  NotFound: true,
  MethodNotAllowed: true,
  NotAcceptable: true,
  UnsupportedMediaType: true,
  InvalidQuery: true,
  QueryTooComplex: true,
  TooManyRequests: true,
  InternalError: true,
  ServiceUnavailable: true,
  RequestBudgetExceeded: true,
  QueryTimeout: true,
  UnsupportedOffchainVersion: true,
  InvalidSignature: true,
  UidMismatch: true,
  UnknownNetwork: true,
  UnknownSchema: true,
  AttestationInFuture: true,
  AttestationExpired: true,
  UndecodableData: true,
  UnverifiableAstralAttestation: true,
  UidConflict: true,
  PublishingDisabled: true,
  AttesterNotAllowed: true,
};

const counts = {
  total: int("Every stored proof, revoked ones included"),
  revoked: int(),
  active: int("total − revoked"),
  with_coordinates: int(),
  last_24h: int("By event time"),
  last_7d: int(),
  last_30d: int(),
  earliest_event: time(),
  latest_event: time(),
};

const sourceCounts = {
  total: int("Every stored proof, revoked ones included"),
  revoked: int(),
  active: int("total − revoked"),
  with_coordinates: int(),
};

const freshness = {
  status: { type: "string", enum: ["ok", "stale", "never_synced"] },
  last_indexed_block: nullable("integer", { description: "Every attestation up to this block is indexed" }),
  last_indexed_block_time: time(),
  head_block: nullable("integer", { description: "The chain head as the last sync run saw it" }),
  head_checked_at: time(),
  lag_blocks: nullable("integer", { description: "head_block − last_indexed_block" }),
  last_synced_at: time("When the last successful sync run ended"),
  seconds_since_sync: nullable("integer"),
  paused: { type: "boolean", description: "An operator paused the chain's scheduled sync" },
};

const check = (properties: Record<string, Json>, optional: string[] = []) =>
  closed(properties, undefined, optional);

export const NATIVE_SCHEMAS: Record<string, Json> = {
  LocationProof: closed(
    {
      ...Object.fromEntries(PROOF_PROPERTIES.map((q) => [q.name, jsonSchemaOf(q, "2020-12")])),
      distance: {
        type: "number",
        minimum: 0,
        description:
          "Great-circle distance in metres from `near` to the representative point: only in a list with near and radius",
      },
      truncated: TRUNCATED_SCHEMA as unknown as Json,
    },
    "A location record: one EAS attestation of a location schema (v0.1, or the Location Protocol's), decoded by its schema's field names; on chain (source onchain), or a signed off-chain attestation published to this service (source offchain, in a list with source=offchain or all)",
    ["distance", "truncated"],
  ),
  OffchainLocationRecord: closed(
    {
      ...Object.fromEntries(PROOF_PROPERTIES.map((q) => [q.name, jsonSchemaOf(q, "2020-12")])),
      source: { const: "offchain", description: "An off-chain attestation published to this service" },
      signer: {
        type: "string",
        pattern: "^0x[0-9a-f]{40}$",
        description: "The address the EIP-712 signature recovers (the attester; also prover)",
      },
      published_at: { type: "string", format: "date-time", description: "When this service accepted it" },
      timestamped_at: {
        type: ["string", "null"],
        format: "date-time",
        description:
          "When its uid was timestamped on its chain (EAS Timestamped, read by the sync); null while it was not",
      },
      offchain_version: {
        type: "integer",
        enum: [1, 2],
        description: "The EAS off-chain attestation version",
      },
      signed_url: {
        type: "string",
        description: "The signed original, to verify without trusting this service",
      },
    },
    "A location record from a signed EAS off-chain attestation, verified when it was published (docs/offchain.md)",
  ),
  Pagination: closed({
    total: int("Proofs matching the filters"),
    limit: { type: "integer", minimum: 1 },
    offset: nullable("integer", {
      minimum: 0,
      description: "The offset requested (0 without one); null on a page reached by a cursor",
    }),
    returned: int(),
    next: {
      type: ["string", "null"],
      format: "uri",
      description: "The next page (a cursor link); null on the last",
    },
    prev: {
      type: ["string", "null"],
      format: "uri",
      description: "The previous page (a cursor link); null on the first",
    },
  }),
  LocationProofList: closed({
    data: { type: "array", items: ref("LocationProof") },
    pagination: ref("Pagination"),
  }),
  Stats: closed({
    ...counts,
    by_chain: {
      type: "object",
      description: "Per chain name, from the data",
      additionalProperties: closed({ ...counts, chain_id: nullable("integer") }),
    },
    by_schema: {
      type: "object",
      description: "Per schema UID, from the data",
      additionalProperties: closed(sourceCounts),
    },
    by_protocol_version: {
      type: "object",
      description:
        "Per Location Protocol version (major.minor; none: records of a schema that is not the protocol's)",
      additionalProperties: closed(sourceCounts),
    },
    publications: closed(
      { total: int("Every off-chain record held"), last_24h: int("Published in the last 24 hours") },
      "Off-chain records published to this service (docs/offchain.md), whatever the filter",
    ),
  }),
  ChainFreshness: closed({ chain: { type: "string" }, chain_id: { type: "integer" }, ...freshness }),
  Config: closed({
    version: { type: "string" },
    schema: {
      type: "string",
      description: "The v0.1 location-proof schema, known by its UID on every chain",
    },
    schema_discovery: closed(
      {
        mode: {
          type: "string",
          enum: ["discover", "known"],
          description:
            "discover: every location schema found by its field names; known: the v0.1 schema and the allowed UIDs only (SCHEMA_MODE)",
        },
        allow: {
          type: "array",
          items: { type: "string" },
          description: "Schema UIDs always indexed (SCHEMA_ALLOW)",
        },
        deny: {
          type: "array",
          items: { type: "string" },
          description: "Schema UIDs never indexed (SCHEMA_DENY)",
        },
      },
      "Which schemas are indexed",
    ),
    chains: {
      type: "array",
      items: closed({
        ...strings("name", "display_name"),
        chain_id: { type: "integer" },
        ...strings("eas_address", "schema_registry_address", "schema_uid", "schema"),
        start_block: { type: "integer" },
        confirmations: { type: "integer" },
        enabled: { type: "boolean", description: "This deployment syncs the chain (CHAINS)" },
        sync: {
          oneOf: [{ type: "null" }, closed(freshness)],
          description: "Freshness; null for a chain not synced here, or while the database cannot say",
        },
        schemas: {
          oneOf: [
            { type: "null" },
            {
              type: "array",
              items: closed({
                uid: { type: "string" },
                schema: { type: "string", description: "The schema string as registered" },
                protocol_version: nullable("string", {
                  description:
                    "0.1 (the v0.1 schema), 0.2 (the protocol's base fields), null (allowed by UID, not the protocol's)",
                }),
                first_block: nullable("integer", {
                  description:
                    "Block of its Registered event; null when known by UID before discovery passed it",
                }),
                state: {
                  type: "string",
                  enum: ["indexed", "backfilling"],
                  description: "backfilling: indexed alone up to backfilled_to_block, then with the chain",
                },
                backfilled_to_block: nullable("integer"),
              }),
            },
          ],
          description:
            "The schemas this chain indexes; null for a chain not synced here, or while the database cannot say",
        },
      }),
    },
    limits: closed({
      page_size_default: int(),
      page_size_max: int(),
      ogc_limit_default: int(),
      ogc_limit_max: int(),
      rate_limit_per_minute: int("0: no limit"),
      sync_stale_after_seconds: int(),
    }),
    links: closed({ openapi: url, docs: url, ogc_api: url }),
  }),
  Health: closed({
    status: {
      type: "string",
      enum: ["ok", "degraded"],
      description: "degraded: an enabled chain's data is stale, or a read replica does not answer",
    },
    version: { type: "string" },
    time: { type: "string", format: "date-time" },
    checks: closed(
      {
        database: check({ status: { const: "ok" }, latency_ms: int() }),
        rate_limiter: ref("RateLimiterCheck"),
        sync: check(
          {
            status: { type: "string", enum: ["ok", "degraded", "unknown"] },
            stale_after_seconds: int(),
            chains: { type: "array", items: ref("ChainFreshness") },
            problems: { type: "array", items: { type: "string" } },
          },
          ["problems"],
        ),
        replicas: {
          type: "array",
          description: "The read replicas (DATABASE_READ_URL), in its order; absent without replicas",
          items: {
            oneOf: [
              closed({
                status: { const: "ok" },
                latency_ms: int(),
                lag_seconds: {
                  type: "number",
                  minimum: 0,
                  description: "How far its replay is behind the primary",
                },
              }),
              closed({ status: { const: "error" }, reason: { type: "string" } }),
            ],
          },
        },
      },
      undefined,
      ["replicas"],
    ),
  }),
  RateLimiterCheck: check({
    status: { type: "string", enum: ["ok", "failing-open"] },
    backend: { type: "string" },
    failures: int(),
    last_failure_at: time(),
  }),
  Root: closed({
    ...strings("name", "version", "description"),
    links: {
      type: "object",
      description: "Absolute URLs of every endpoint group",
      additionalProperties: { type: "string" },
      required: ["self", "openapi", "docs"],
    },
  }),
  Error: closed(
    {
      error: { type: "string", description: "The status text", examples: ["Bad Request"] },
      code: { type: "string", enum: Object.keys(ERROR_CODES) },
      message: { type: "string" },
      description: { type: "string", description: "message again, for OGC API clients" },
      parameter: { type: "string", description: "The query parameter at fault" },
      details: { type: "object", description: "More about a 503 (e.g. the failing checks of /health)" },
    },
    "The one error object of every endpoint",
    ["parameter", "details"],
  ),
  HtmlPage: { type: "string", description: "An HTML page (text/html), for people" },
};
