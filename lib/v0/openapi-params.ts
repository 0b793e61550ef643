import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";

type Json = Record<string, unknown>;
type Entries = Record<string, v.GenericSchema>;

/** Normalisations that keep the type (a trimmed, lower-cased address is still the address the pattern names). */
const IGNORED_ACTIONS = ["trim", "to_lower_case", "description", "examples", "metadata"];

/**
 * The JSON Schema (2020-12) of one query parameter, from the very valibot schema that validates it. Where the
 * parsed value is a JSON value (integers, booleans, lists of names), the schema of that value with its bounds and
 * enums (typeMode "output"): this is how OpenAPI describes a query parameter. Where the parameter is parsed into
 * something else by code (a bbox, a timestamp, an interval), the schema of the string before that code runs
 * (typeMode "input"), and the description states the grammar.
 */
export function parameterSchema(schema: v.GenericSchema): Json {
  const config = { target: "draft-2020-12", ignoreActions: IGNORED_ACTIONS } as const;
  let json: Json;
  try {
    json = toJsonSchema(schema, { ...config, typeMode: "output", errorMode: "throw" }) as Json;
  } catch {
    json = toJsonSchema(schema, { ...config, typeMode: "input", errorMode: "ignore" }) as Json;
  }
  const { $schema: _, ...rest } = json;
  return rest;
}

/**
 * OpenAPI parameter objects for a route's query schema (the entries parseQuery validates): each one optional, with
 * the default the validator fills in (the parsed value of an absent parameter), its description (and example) from
 * the schema's own metadata (lib/params/grammar.ts, doc; `fill` completes a description per use), and lists as comma-separated values (`style: form, explode: false`).
 */
export function queryParameters(entries: Entries, fill = (description: string) => description): Json[] {
  return Object.entries(entries).map(([name, optional]) => {
    const inner = "wrapped" in optional ? (optional.wrapped as v.GenericSchema) : optional;
    const stated = (v.getMetadata(inner) as { openapi?: Json }).openapi ?? {};
    const schema = "type" in stated ? { ...stated } : { ...parameterSchema(inner), ...stated };
    const absent = v.safeParse(optional, undefined);
    if (absent.success && absent.output !== undefined) schema.default = absent.output;
    // An example goes into the words, not into `example`: renderers fill an example into "Try it out", and a filter
    // nobody asked for would narrow the answer.
    const [example] = v.getExamples(inner) as unknown[];
    const description = v.getDescription(inner) ?? "";
    return {
      name,
      in: "query",
      required: !absent.success,
      description: fill(example === undefined ? description : `${description} Example: \`${example}\`.`),
      schema,
      ...(schema.type === "array" ? { style: "form", explode: false } : {}),
    };
  });
}
