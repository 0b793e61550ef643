import * as v from "valibot";
import {
  type ProofProperty,
  proofProperty,
  QUERYABLE_PROPERTIES,
  valueSchema,
} from "../proofs/properties.js";
import { doc, readParam, rfc3339, YEARS } from "./grammar.js";

/**
 * Queryables as query parameters (OGC API - Features Part 3, /req/queryables-query-parameters): every queryable with
 * a simple value (lib/proofs/properties.ts: a string, an address or hash, an integer, a number, a boolean or an
 * instant) is a query parameter of the items and of the tiles, by its own name: `?revoked=false&chain_id=8453`. Only
 * the features whose property equals the value match (a feature whose property is null never does), typed as the
 * queryable is: a value that is not of its type is a 400 naming the parameter.
 *
 * `chain`, `prover` and `subject` were parameters before (lib/params/filter-params.ts) and keep their grammar (chain
 * takes a comma-separated list); the list below holds the other queryables, by name, so that the tiles' list
 * (lib/tiles/tile-rules.ts) names each one at compile time. tests/ogc/queryable-params.test.ts checks that the two
 * together are exactly the simple queryables, so a queryable added to the catalogue cannot be left without one.
 * The arrays (recipe_type, media_type) and the geometry are not simple values: CQL2 serves them.
 */
export const QUERYABLE_PARAM_NAMES = [
  "uid",
  "chain_id",
  "event_timestamp",
  "location_type",
  "latitude",
  "longitude",
  "srs",
  "revoked",
  "attestation_time",
  "memo",
  "schema_uid",
  "block_number",
  "protocol_version",
  "location_type_normalized",
] as const;
export type QueryableParamName = (typeof QUERYABLE_PARAM_NAMES)[number];

/** The queryables that were parameters already, with their own grammar. */
export const EARLIER_QUERYABLE_PARAMS = ["chain", "prover", "subject"] as const;

/** A parameter's value, typed as its queryable: a CQL2 literal of it (lib/ogc/queryable-filter.ts). */
export type QueryableValue = string | number | boolean | Date;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d{1,16}$/;

/** A number written as `pattern` matches, then held to `check` (whole, or finite). */
const numeric = (pattern: RegExp, message: string, check: v.GenericValidation<number>) =>
  v.pipe(v.string(), v.regex(pattern, message), v.transform(Number), v.number(), check);

function validator(q: ProofProperty): v.GenericSchema<string, QueryableValue> {
  const name = q.name;
  switch (q.type) {
    case "address":
    case "hash": {
      const digits = q.type === "address" ? 40 : 64;
      return v.pipe(
        v.string(),
        v.trim(),
        v.regex(
          new RegExp(`^0x[0-9a-fA-F]{${digits}}$`),
          `${name} must be 0x and ${digits} hex digits (any case)`,
        ),
        v.toLowerCase(),
      );
    }
    case "integer":
      return numeric(
        INTEGER,
        `${name} must be a whole number`,
        v.safeInteger(`${name} must be a whole number`),
      );
    case "number":
      return numeric(NUMBER, `${name} must be a number`, v.finite(`${name} must be a finite number`));
    case "boolean":
      return v.pipe(
        v.string(),
        v.picklist(["true", "false"], `${name} must be true or false`),
        v.transform((s) => s === "true"),
        v.boolean(),
      );
    case "timestamp":
      return readParam(
        (value) =>
          rfc3339(value) ??
          `${name} must be an RFC 3339 instant with seconds and an offset (2025-03-01T12:00:00Z), ${YEARS}`,
      );
    case "string":
      // PostgreSQL text cannot hold U+0000 (as in a CQL2 string literal).
      return v.pipe(
        v.string(),
        v.minLength(1, `${name} must not be empty`),
        v.check((s) => !s.includes("\u0000"), `${name} must not contain U+0000 (NUL)`),
      );
    default:
      throw new Error(`queryable ${name}: a ${q.type} is not a simple value`);
  }
}

const EXAMPLES: Partial<Record<QueryableParamName, string>> = {
  revoked: "false",
  chain_id: "8453",
  event_timestamp: "2025-03-01T12:00:00Z",
  location_type_normalized: "geojson-polygon",
};

/**
 * The validators, optional, documented as the queryable is, with its JSON Schema (valueSchema, the one
 * /queryables states) for the API documents.
 */
function queryableParam(name: QueryableParamName) {
  const q = proofProperty(name);
  if (!q?.queryable) throw new Error(`${name} is not a queryable`);
  const words = [
    `Only features whose ${name} equals this value (a queryable as a query parameter, OGC API - Features Part 3): ${q.description}.`,
    q.type === "address" || q.type === "hash" ? "Any case." : "",
    q.type === "timestamp" ? "The same instant, whatever the offset." : "",
    q.nullable ? "A feature without a value never matches." : "",
  ];
  return v.optional(doc(validator(q), words.filter(Boolean).join(" "), EXAMPLES[name], valueSchema(q)));
}

export const QUERYABLE_PARAMS = Object.fromEntries(
  QUERYABLE_PARAM_NAMES.map((name) => [name, queryableParam(name)]),
) as { [K in QueryableParamName]: ReturnType<typeof queryableParam> };

/** The simple queryables of the catalogue: those a query parameter must exist for. */
export const SIMPLE_QUERYABLES = QUERYABLE_PROPERTIES.filter((q) =>
  ["string", "address", "hash", "integer", "number", "boolean", "timestamp"].includes(q.type),
).map((q) => q.name);
