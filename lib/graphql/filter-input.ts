import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
} from "graphql/index.mjs";
import * as v from "valibot";
import { badParameter } from "../http/errors.js";
import { cursorParam, integerParam } from "../params/grammar.js";
import { proximityOf } from "../params/proximity.js";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, LIST_PARAMS, type ListQuery } from "../v0/list-params.js";
import { parameterSchema } from "../v0/openapi-params.js";

/**
 * The GraphQL list's filter, derived from the native list's parameter catalogue (lib/v0/list-params.ts): every
 * parameter of GET /api/v0/location-proofs but paging and format is a field of LocationProofFilter, with the same
 * name, description and default, and its value is checked by the very same validator, which the native API's
 * 400s come from. A parameter added to the native list is a filter here without a change.
 *
 * Values travel as the native query string carries them: a GraphQL Boolean, number or list is written back as the
 * parameter's text ("true", "10", "sepolia,base") and parsed by the native schema, so both APIs accept and refuse
 * exactly the same filters with the same messages.
 */

/**
 * The native list parameters that page, order or pick a format: GraphQL pages with first/after, newest first, and
 * answers JSON. (near and radius are filters here as natively; the nearest-first order is the REST APIs'.)
 */
const NOT_FILTERS = new Set(["limit", "offset", "cursor", "sort", "f"]);

type Entries = Record<string, v.GenericSchema>;
const FILTER_PARAMS: Entries = Object.fromEntries(
  Object.entries(LIST_PARAMS as Entries).filter(([name]) => !NOT_FILTERS.has(name)),
);
const FILTER_SCHEMA = v.object(FILTER_PARAMS);

const unwrap = (schema: v.GenericSchema): v.GenericSchema =>
  "wrapped" in schema ? (schema.wrapped as v.GenericSchema) : schema;

/** The GraphQL input type of a parameter, from the JSON Schema its validator documents (lib/v0/openapi-params.ts). */
function inputType(schema: v.GenericSchema): GraphQLInputType {
  const json = parameterSchema(unwrap(schema));
  switch (json.type) {
    case "boolean":
      return GraphQLBoolean;
    case "integer":
      return GraphQLInt;
    case "number":
      return GraphQLFloat;
    case "array":
      return new GraphQLList(new GraphQLNonNull(GraphQLString));
    default:
      return GraphQLString;
  }
}

function description(name: string, schema: v.GenericSchema): string {
  const inner = unwrap(schema);
  const text = v.getDescription(inner) ?? "";
  const [example] = v.getExamples(inner) as unknown[];
  const absent = v.safeParse(schema, undefined);
  const fallback = absent.success && absent.output !== undefined ? ` Default: ${String(absent.output)}.` : "";
  return `${text}${fallback}${example === undefined ? "" : ` Example: ${JSON.stringify(example)}.`} As the native list's \`${name}\` parameter.`;
}

export const LocationProofFilterType = new GraphQLInputObjectType({
  name: "LocationProofFilter",
  description:
    "Filters of the native list (GET /api/v0/location-proofs), by the same names, with the same values, rules and messages. Every field combines with the others by AND.",
  fields: () =>
    Object.fromEntries(
      Object.entries(FILTER_PARAMS).map(([name, schema]) => [
        name,
        { type: inputType(schema), description: description(name, schema) },
      ]),
    ),
});

/** A GraphQL input value as the native query string writes it. */
function asParameterText(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(",");
  return String(value);
}

/** The parsed filter parameters: the native list query but its paging and format. */
export type FilterQuery = Omit<ListQuery, "limit" | "offset" | "cursor" | "sort" | "f">;

/**
 * A LocationProofFilter value checked by the native validators: the parsed query, or a 400 naming the filter field
 * (`filter.bbox`) with the native message. Null fields are absent ones.
 */
export function parseFilter(
  input: Record<string, unknown> | null | undefined,
  argument = "filter",
): FilterQuery {
  const raw: Record<string, string> = {};
  for (const [name, value] of Object.entries(input ?? {})) {
    if (value !== null && value !== undefined) raw[name] = asParameterText(value);
  }
  const result = v.safeParse(FILTER_SCHEMA, raw);
  if (result.success) {
    // near and radius come as a pair, as natively (the same check, naming the filter's field).
    proximityOf(result.output as FilterQuery, undefined, `${argument}.`);
    return result.output as FilterQuery;
  }
  const issue = result.issues[0];
  const key = issue.path?.[0]?.key;
  const name = typeof key === "string" ? key : "";
  throw badParameter(
    name ? `${argument}.${name}` : argument,
    name && issue.message.startsWith(name) ? issue.message : `${name || argument}: ${issue.message}`,
  );
}

export const DEFAULT_FIRST = LIST_DEFAULT_LIMIT;
export const MAX_FIRST = LIST_MAX_LIMIT;

/** `first`: the native page size's bounds (the limit parameter's), under GraphQL's name. */
const FIRST = integerParam("first", 1, LIST_MAX_LIMIT);

/** The page arguments, checked: `first` as the native limit, `after` as a native cursor (its alphabet and length). */
export function parsePaging(first: number | null | undefined, after: string | null | undefined) {
  const size = v.safeParse(FIRST, String(first ?? DEFAULT_FIRST));
  if (!size.success) throw badParameter("first", size.issues[0].message);
  if (after !== null && after !== undefined && !v.safeParse(cursorParam, after).success) {
    throw badParameter(
      "after",
      "after must be the endCursor of a page (or the cursor of a native next link)",
    );
  }
  return { limit: size.output, ...(after !== null && after !== undefined ? { cursor: after } : {}) };
}
