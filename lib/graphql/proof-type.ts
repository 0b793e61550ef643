import {
  GraphQLBoolean,
  type GraphQLFieldConfig,
  GraphQLFloat,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLString,
} from "graphql/index.mjs";
import { PROOF_PROPERTIES, type ProofProperty, type PropertyType } from "../proofs/properties.js";
import { JSONValue, SafeInt } from "./scalars.js";

/**
 * The LocationProof type, from the property catalogue (lib/proofs/properties.ts): every property of the native
 * record, in its order, named in camelCase as GraphQL fields are (event_timestamp → eventTimestamp), with the
 * catalogue's description. A property added to the catalogue is a field here without a change.
 *
 * A proof reaches the resolvers as the native record (recordJson written by PostgreSQL, parsed), so a field's value
 * is the native record's member, value for value.
 */

export type NativeRecord = Record<string, unknown>;

/** event_timestamp → eventTimestamp */
export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const nonNullList = (of: GraphQLOutputType) => new GraphQLList(new GraphQLNonNull(of));

const TYPES: Record<PropertyType, GraphQLOutputType> = {
  string: GraphQLString,
  address: GraphQLString,
  hash: GraphQLString,
  timestamp: GraphQLString,
  decimal: GraphQLString,
  integer: SafeInt,
  number: GraphQLFloat,
  boolean: GraphQLBoolean,
  strings: nonNullList(GraphQLString),
  geometry: JSONValue,
  bbox: nonNullList(GraphQLFloat),
  object: JSONValue,
};

/** What a catalogue type means in words, for the field's description (GraphQL's String says nothing of it). */
const FORMAT: Partial<Record<PropertyType, string>> = {
  address: "0x + 40 hex digits, lowercase",
  hash: "0x + 64 hex digits, lowercase",
  timestamp: "ISO 8601 in UTC with milliseconds",
  decimal: "an exact unsigned integer as a decimal string",
};

function field(q: ProofProperty): GraphQLFieldConfig<NativeRecord, unknown> {
  const type = TYPES[q.type];
  const format = FORMAT[q.type];
  return {
    type: q.nullable ? type : new GraphQLNonNull(type),
    description: format ? `${q.description} (${format})` : q.description,
    resolve: (record) => record[q.name],
  };
}

/** The marker of a proof a list cut (lib/bounds/): which values, and where the whole record is. */
const TruncationType = new GraphQLObjectType<NativeRecord>({
  name: "Truncation",
  description:
    "Values a list cut to its bounds (docs/security.md, Bounded responses); the proof by uid (locationProof) has them whole",
  fields: {
    fields: {
      type: new GraphQLNonNull(nonNullList(GraphQLString)),
      description: "The cut values, by their native (snake_case) names",
      resolve: (t) => t.fields,
    },
    href: {
      type: new GraphQLNonNull(GraphQLString),
      description: "The path of the whole record (GET, relative to the service's origin)",
      resolve: (t) => t.href,
    },
  },
});

export const LocationProofType = new GraphQLObjectType<NativeRecord>({
  name: "LocationProof",
  description:
    "A location proof: one EAS attestation of a location schema (v0.1, or the Location Protocol's), decoded. The same values as the native API's record (GET /api/v0/location-proofs/{uid}), its snake_case names in camelCase.",
  fields: () => ({
    ...Object.fromEntries(PROOF_PROPERTIES.map((q) => [camelCase(q.name), field(q)])),
    truncated: {
      type: TruncationType,
      description:
        "In a page (locationProofs): which values were cut to the list's bounds, null when none was; always null for locationProof, which has every value whole",
      resolve: (record) => (record.truncated as NativeRecord | undefined) ?? null,
    },
  }),
});
