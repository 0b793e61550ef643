import { GraphQLError, GraphQLScalarType } from "graphql/index.mjs";

/**
 * Scalars GraphQL lacks. Output only: no argument takes them (filters take the native API's own strings, numbers
 * and booleans), so reading a value from a query is refused.
 */

const outputOnly = (name: string) => (): never => {
  throw new GraphQLError(`${name} is an output type; no argument takes it`);
};

/**
 * An integer of up to 53 bits (block numbers, chain ids). GraphQL's Int stops at 2^31 − 1, which a chain id or a
 * block number can pass; JSON numbers hold these exactly.
 */
export const SafeInt = new GraphQLScalarType({
  name: "SafeInt",
  description: "An integer between -(2^53 - 1) and 2^53 - 1, as a JSON number",
  serialize(value) {
    if (typeof value === "number" && Number.isSafeInteger(value)) return value;
    if (typeof value === "string" && /^-?\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value)))
      return Number(value);
    throw new GraphQLError(`SafeInt cannot represent ${String(value)}`);
  },
  parseValue: outputOnly("SafeInt"),
  parseLiteral: outputOnly("SafeInt"),
});

/** A JSON value as it is (a GeoJSON geometry). */
export const JSONValue = new GraphQLScalarType({
  name: "JSON",
  description: "A JSON value, as it is (here: a GeoJSON geometry, RFC 7946, longitude first)",
  serialize: (value) => value,
  parseValue: outputOnly("JSON"),
  parseLiteral: outputOnly("JSON"),
});
