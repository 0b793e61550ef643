import { type AbiParameter, parseAbiParameters } from "viem";
import { LOCATION_SCHEMA, LOCATION_SCHEMA_UID } from "../chains/schema.js";
import type { Config } from "../config.js";

/**
 * Which EAS schemas hold location records, and which of them a deployment indexes.
 *
 * Recognition is by field names, because the Location Protocol's schema string is not settled (the spec, its Dart
 * library and Astral's services each register their own, and applications append fields of their own), so no list of
 * UIDs can find them: a schema is a location schema when it has fields named `srs`, `location`, and `location_type`
 * or `locationType`. The v0.1 schema is known by its UID as well.
 */

/** A schema string parsed into ABI parameters, with the names as written (also names ABI reserves, like `address`). */
export type ParsedSchema = { params: readonly AbiParameter[] };

/** Splits at the commas outside parentheses: "(string a,uint b)[] x, bool y" → ["(string a,uint b)[] x", "bool y"]. */
function topLevelParts(schema: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < schema.length; i++) {
    const c = schema[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(schema.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(schema.slice(start));
  return parts.map((p) => p.trim());
}

/**
 * The schema's ABI parameters, or undefined when it is no ABI parameter list (EAS stores any string). viem's parser
 * refuses field names that are Solidity keywords (`string address` is a plausible location field), so the top-level
 * names are set aside, the types parsed under placeholder names, and the names put back.
 */
export function parseSchema(schema: string): ParsedSchema | undefined {
  const parts = topLevelParts(schema);
  if (parts.length === 0 || parts.some((p) => p === "")) return undefined;
  const named = parts.map((p) => /^(.*?[\])\w])\s+([A-Za-z_$][\w$]*)$/.exec(p));
  try {
    const params = parseAbiParameters(
      named.map((m, i) => (m ? `${m[1]} p${i}` : `${parts[i]} p${i}`)).join(", "),
    ) as readonly AbiParameter[];
    if (params.length !== parts.length) return undefined;
    return { params: params.map((p, i) => ({ ...p, name: named[i]?.[2] ?? "" })) };
  } catch {
    return undefined;
  }
}

/** The field names that make a schema a location schema. */
const LOCATION_TYPE_NAMES = ["location_type", "locationType"];

export type SchemaDescription = {
  /** the schema string as registered */
  schema: string;
  parsed: ParsedSchema | undefined;
  /** a location schema: by its field names, or the v0.1 UID */
  location: boolean;
  /** "0.1" for the v0.1 schema, "0.2" for a schema of the protocol's base fields, null for any other */
  protocolVersion: "0.1" | "0.2" | null;
};

export function describeSchema(uid: string, schema: string): SchemaDescription {
  const parsed = parseSchema(schema);
  const names = new Set(parsed?.params.map((p) => p.name) ?? []);
  const v01 = uid.toLowerCase() === LOCATION_SCHEMA_UID || schema === LOCATION_SCHEMA;
  const byNames = names.has("srs") && names.has("location") && LOCATION_TYPE_NAMES.some((n) => names.has(n));
  const location = v01 || byNames;
  return { schema, parsed, location, protocolVersion: v01 ? "0.1" : byNames ? "0.2" : null };
}

/**
 * What an operator decides (lib/config.ts): SCHEMA_MODE `discover` (every recognised location schema) or `known`
 * (the v0.1 schema and SCHEMA_ALLOW only); SCHEMA_ALLOW indexes these UIDs whatever their fields; SCHEMA_DENY never
 * indexes these, whatever else says so.
 */
export type SchemaPolicy = {
  mode: "discover" | "known";
  allow: ReadonlySet<string>;
  deny: ReadonlySet<string>;
};

export const schemaPolicy = (config: Pick<Config, "schemas">): SchemaPolicy => config.schemas;

/** Whether the policy indexes a schema of this UID, recognised (or not) as a location schema. */
export function indexes(policy: SchemaPolicy, uid: string, location: boolean): boolean {
  const u = uid.toLowerCase();
  if (policy.deny.has(u)) return false;
  if (policy.allow.has(u) || u === LOCATION_SCHEMA_UID) return true;
  return policy.mode === "discover" && location;
}
