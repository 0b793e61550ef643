import { knownChainNames } from "../chains/registry.js";
import { LOCATION_TYPES } from "../location/vocabulary.js";
import { MAX_RADIUS_M } from "../proofs/near.js";
import { NATIVE_SCHEMAS } from "../v0/openapi-schemas.js";
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT } from "./search.js";

/**
 * The JSON Schemas of the MCP tools' arguments and answers. Answers reuse the native API's response schemas
 * (lib/v0/openapi-schemas.ts: one catalogue), with their references written inline, since a tool's schema stands
 * alone. Arguments describe the native parameters of the same names; the native validators still decide
 * (lib/mcp/arguments.ts), so a schema a client ignores changes nothing.
 */
type Json = Record<string, unknown>;

/** A native response schema with every `#/components/schemas/X` replaced by X itself. */
export function standalone(name: string): Json {
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (value === null || typeof value !== "object") return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
      return inline(NATIVE_SCHEMAS[ref.slice("#/components/schemas/".length)]);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v)]));
  };
  return inline(NATIVE_SCHEMAS[name]) as Json;
}

const list = (items: Json, description: string): Json => ({
  type: "array",
  items,
  minItems: 1,
  description: `${description} Any of them matches.`,
});
const address = (description: string): Json => ({
  type: "string",
  pattern: "^0x[0-9a-fA-F]{40}$",
  description,
});
const SCHEMA_UID = { type: "string", pattern: "^0x[0-9a-fA-F]{64}$" };
const sourceArguments = {
  schema: list(SCHEMA_UID, "EAS schema UIDs (list_networks names each chain's)."),
  protocolVersion: list(
    { type: "string", pattern: "^\\d+\\.\\d+$" },
    "Location Protocol versions as major.minor, e.g. 0.1, 0.2.",
  ),
  locationType: list(
    { type: "string", enum: [...LOCATION_TYPES] },
    "Location types of the protocol's vocabulary, matched against the normalised type.",
  ),
};
const closed = (properties: Json, required: string[] = []): Json => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

const timestamp = (description: string): Json => ({
  type: "string",
  description: `${description} An ISO 8601 date or date-time (no offset = UTC; a date alone = that whole UTC day).`,
});

export const searchInputSchema = (): Json =>
  closed({
    near: {
      type: "array",
      items: { type: "number" },
      minItems: 2,
      maxItems: 2,
      description:
        "[longitude, latitude] in degrees (WGS84): with radius, only proofs within radius metres (great-circle) of this point; each then carries its distance. Needs radius.",
    },
    radius: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: MAX_RADIUS_M,
      description: "Metres from near. Needs near.",
    },
    sort: {
      type: "string",
      enum: ["distance"],
      description: "distance: nearest first (needs near and radius). Absent: newest event first.",
    },
    bbox: {
      type: "array",
      items: { type: "number" },
      minItems: 4,
      maxItems: 4,
      description:
        "[minLng, minLat, maxLng, maxLat] in degrees; minLng > maxLng crosses the antimeridian. Proofs without coordinates never match.",
    },
    fromTimestamp: timestamp("Inclusive lower bound on the event time."),
    toTimestamp: timestamp("Inclusive upper bound on the event time."),
    datetime: {
      type: "string",
      description: "An instant, start/end, ../end or start/.. on the event time (OGC API style).",
    },
    chain: list(
      { type: "string", enum: knownChainNames(process.env) },
      "Chain names (list_networks lists them).",
    ),
    prover: address("The attester's address."),
    subject: address("The recipient's address."),
    ...sourceArguments,
    hasCoordinates: { type: "boolean", description: "true: only proofs with valid coordinates." },
    includeRevoked: {
      type: "boolean",
      default: false,
      description: "Revoked proofs are left out unless true.",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: SEARCH_MAX_LIMIT,
      default: SEARCH_DEFAULT_LIMIT,
      description: "Page size.",
    },
    cursor: {
      type: "string",
      description:
        "pagination.next_cursor (or prev_cursor) of an earlier answer with the same filters: the page after (before) it.",
    },
  });

export const searchOutputSchema = (): Json =>
  closed(
    {
      data: { type: "array", items: standalone("LocationProof") },
      pagination: closed(
        {
          total: { type: "integer", minimum: 0, description: "Proofs matching the filters" },
          limit: { type: "integer", minimum: 1 },
          returned: { type: "integer", minimum: 0 },
          next_cursor: {
            type: ["string", "null"],
            description: "Pass as cursor for the next page; null on the last",
          },
          prev_cursor: {
            type: ["string", "null"],
            description: "Pass as cursor for the previous page; null on the first",
          },
        },
        ["total", "limit", "returned", "next_cursor", "prev_cursor"],
      ),
    },
    ["data", "pagination"],
  );

export const getProofInputSchema = (): Json =>
  closed({ uid: { ...SCHEMA_UID, description: "The attestation's uid (0x + 64 hex digits)." } }, ["uid"]);

export const statisticsInputSchema = (): Json => closed(sourceArguments);

export const noArguments = (): Json => closed({});
