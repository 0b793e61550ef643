import * as v from "valibot";
import { LOCATION_TYPES } from "../location/vocabulary.js";
import type { Bbox, TimeInterval } from "../proofs/filter.js";
import { SOURCES } from "../proofs/source.js";
import { DAY_MS, inTimestampRange } from "../proofs/timestamps.js";

/**
 * The grammar of query parameters shared by the native and the OGC endpoints (valibot schemas over the raw string).
 * Messages name the parameter and say what was expected, since they go straight into 400 responses.
 */

/*
 * Where a parameter's parsed value is a plain JSON value (an integer, a boolean, a list of names), its pipe ends in
 * a schema of that value with its bounds (v.number(), v.integer(), v.minValue, …): the API document is generated
 * from that tail (lib/v0/openapi-params.ts), so a bound changed here changes the validation and the document alike.
 */

export const integerParam = (name: string, min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d{1,16}$/, `${name} must be a whole number between ${min} and ${max}`),
    v.transform(Number),
    v.number(),
    v.integer(),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** minLon,minLat,maxLon,maxLat (or the 3D form minLon,minLat,minZ,maxLon,maxLat,maxZ when `allow3d`). */
export function parseBbox(value: string, name = "bbox", allow3d = false): Bbox | string {
  const parts = value.split(",").map((s) => s.trim());
  const forms = allow3d ? "4 or 6" : "4";
  if (!(parts.length === 4 || (allow3d && parts.length === 6)) || !parts.every((s) => NUMBER.test(s))) {
    return `${name} must be ${forms} comma-separated numbers: minLng,minLat,maxLng,maxLat`;
  }
  return checkBbox(parts.map(Number), name);
}

/**
 * The bbox rules on parsed numbers, shared by the bbox parameters and CQL2's BBOX(…): 4 numbers, or 6 (heights
 * ignored once checked), longitudes in [-180, 180], latitudes in [-90, 90], minLat ≤ maxLat and minZ ≤ maxZ.
 * minLon > maxLon is allowed: the box crosses the antimeridian.
 */
export function checkBbox(n: readonly number[], name = "bbox"): Bbox | string {
  if (n.length !== 4 && n.length !== 6) return `${name} takes 4 or 6 numbers`;
  const [minLon, minLat, maxLon, maxLat] =
    n.length === 6 ? [n[0]!, n[1]!, n[3]!, n[4]!] : [n[0]!, n[1]!, n[2]!, n[3]!];
  if (![minLon, maxLon].every((x) => x >= -180 && x <= 180))
    return `${name} longitudes must lie in [-180, 180]`;
  if (![minLat, maxLat].every((y) => y >= -90 && y <= 90)) return `${name} latitudes must lie in [-90, 90]`;
  if (minLat > maxLat) return `${name} minLat (${minLat}) must not be greater than maxLat (${maxLat})`;
  if (n.length === 6 && n[2]! > n[5]!) return `${name} minHeight must not be greater than maxHeight`;
  return { minLon, minLat, maxLon, maxLat };
}

/**
 * A string parameter as what `read` makes of it; a string from `read` is its refusal, the issue's message. Every
 * parameter read by a function of its own goes through here, so each refuses in the same way.
 */
export const readParam = <T extends object>(read: (value: string) => T | string) =>
  v.pipe(
    v.string(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const result = read(dataset.value);
      if (typeof result === "string") {
        addIssue({ message: result });
        return NEVER;
      }
      return result;
    }),
  );

export const bboxParam = (name = "bbox", allow3d = false) =>
  readParam((value) => parseBbox(value, name, allow3d));

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/** How the timestamp parameters' messages state the accepted range (lib/proofs/timestamps.ts). */
export const YEARS = "years 0001-9999 (UTC)";

/**
 * An ISO 8601 date or date-time as an interval: a date-time is the instant itself; a date alone is the whole UTC
 * day. A date-time without an offset is read as UTC. Impossible dates (2021-02-30) are rejected, and so is an
 * instant outside years 0001-9999 in UTC (0000-01-01, or 0001-01-01T00:00:00+01:00): the database cannot take it.
 */
export function parseInstant(value: string): TimeInterval | undefined {
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m;
  if (
    Number(mo) < 1 ||
    Number(mo) > 12 ||
    Number(h ?? 0) > 23 ||
    Number(mi ?? 0) > 59 ||
    Number(s ?? 0) > 59
  ) {
    return undefined;
  }
  const dayStart = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear puts the year back.
  dayStart.setUTCFullYear(Number(y));
  if (dayStart.getUTCDate() !== Number(d) || Number(d) < 1) return undefined;
  if (h === undefined) {
    const end = new Date(dayStart.getTime() + DAY_MS - 1);
    return inTimestampRange(dayStart) && inTimestampRange(end) ? { start: dayStart, end } : undefined;
  }
  const withZone = m[8] ? value : `${value}Z`;
  const at = new Date(withZone.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
  if (Number.isNaN(at.getTime()) || !inTimestampRange(at)) return undefined;
  return { start: at, end: at };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * An RFC 3339 date-time (seconds and an offset required, e.g. 2025-01-31T12:00:00Z), or undefined. Impossible
 * dates (2021-02-30) are rejected, never rolled over as `new Date` would. CQL2's TIMESTAMP literals, INTERVAL ends
 * and timestamp strings all use this one rule.
 */
export function rfc3339(value: string): Date | undefined {
  return RFC3339.test(value) ? parseInstant(value)?.start : undefined;
}

/** An ISO 8601 timestamp parameter (fromTimestamp/toTimestamp): the start of what it names. */
export const timestampParam = (name: string, side: "start" | "end") =>
  readParam((value) => {
    const t = parseInstant(value);
    if (!t) return `${name} must be an ISO 8601 date or date-time in ${YEARS}, e.g. 2025-01-31T12:00:00Z`;
    return side === "start" ? t.start! : t.end!;
  });

/**
 * OGC datetime: an instant, a closed interval start/end, or a half-open one with `..` (or an empty side).
 * Intervals are inclusive at both ends.
 */
export function parseDatetime(value: string): TimeInterval | string {
  const expected = `datetime must be an ISO 8601 instant in ${YEARS} (2025-01-31T12:00:00Z) or an interval start/end where either side may be '..'`;
  const parts = value.split("/");
  if (parts.length === 1) return parseInstant(value) ?? expected;
  if (parts.length !== 2) return expected;
  const [a, b] = parts.map((s) => s.trim()) as [string, string];
  const open = (s: string) => s === ".." || s === "";
  if (open(a) && open(b)) return expected;
  const start = open(a) ? undefined : parseInstant(a)?.start;
  const end = open(b) ? undefined : parseInstant(b)?.end;
  if ((!open(a) && !start) || (!open(b) && !end)) return expected;
  if (start && end && start > end) return "datetime interval start must not be after its end";
  return { ...(start ? { start } : {}), ...(end ? { end } : {}) };
}

export const datetimeParam = readParam((value) => parseDatetime(value.trim()));

/** A 0x-prefixed 20-byte address, any case; normalised to lowercase (how the indexer stores it). */
export const addressParam = (name: string) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.regex(/^0x[0-9a-fA-F]{40}$/, `${name} must be a 0x-prefixed 20-byte hex address`),
    v.toLowerCase(),
  );

/** A 0x-prefixed 32-byte attestation uid, any case; normalised to lowercase. */
export const uidParam = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^0x[0-9a-fA-F]{64}$/, "uid must be a 0x-prefixed 32-byte hex string (66 characters)"),
  v.toLowerCase(),
);

/**
 * A comma-separated list of known chain names, read without regard to case or spaces around a name (the lists of
 * proofs, the sync routes). `expected` says in the message what the names are.
 */
export const chainListParam = (
  known: readonly string[],
  name = "chain",
  expected = `one or more of: ${known.join(", ")}`,
) => {
  const message = `${name} must be ${expected}`;
  return v.pipe(
    v.string(),
    v.transform((s) => s.split(",").map((c) => c.trim().toLowerCase())),
    v.array(v.picklist(known, message), message),
    v.minLength(1, message),
  );
};

export const booleanParam = (name: string) =>
  v.pipe(
    v.string(),
    v.picklist(["true", "false"], `${name} must be true or false`),
    v.transform((s) => s === "true"),
    v.boolean(),
  );

/**
 * `source`: where the records come from (lib/proofs/source.ts): onchain (the default), offchain or all. A value
 * outside the three is a 400 naming the parameter, never the default.
 */
export const sourceParam = v.picklist(SOURCES, `source must be one of: ${SOURCES.join(", ")}`);

/**
 * `cursor`: the opaque position a next/prev link carries (lib/proofs/cursor.ts checks it once the sort is known);
 * here only its alphabet and length.
 */
export const cursorParam = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]{1,2048}\.[A-Za-z0-9_-]{1,64}$/, "cursor must be a cursor from a next or prev link"),
);

/** A comma-separated list whose items `item` validates (the message names the parameter and what is expected). */
const listParam = <T extends v.GenericSchema<string, unknown>>(item: T, message: string, lower = false) =>
  v.pipe(
    v.string(),
    v.transform((s) => s.split(",").map((x) => (lower ? x.trim().toLowerCase() : x.trim()))),
    v.array(item, message),
    v.minLength(1, message),
  );

const schemaMessage = "schema must be one or more schema UIDs (0x + 64 hex digits), comma-separated";
/** `schema`: one or more EAS schema UIDs (0x + 64 hex digits, any case), comma-separated; lowercased. */
export const schemaListParam = listParam(
  v.pipe(v.string(), v.regex(/^0x[0-9a-f]{64}$/, schemaMessage)),
  schemaMessage,
  true,
);

const versionMessage =
  "protocolVersion must be one or more Location Protocol versions as major.minor (e.g. 0.1, 0.2, 1.0), comma-separated";
/** `protocolVersion`: one or more Location Protocol versions as major.minor (0.1, 0.2, 1.0), comma-separated. */
export const protocolVersionListParam = listParam(
  v.pipe(v.string(), v.regex(/^\d{1,3}\.\d{1,3}$/, versionMessage)),
  versionMessage,
);

const typeMessage = `locationType must be one or more of: ${LOCATION_TYPES.join(", ")}`;
/** `locationType`: one or more location types of the protocol's vocabulary, comma-separated (matched normalised). */
export const locationTypeListParam = listParam(v.picklist(LOCATION_TYPES, typeMessage), typeMessage);

/**
 * A query parameter's validator with its documentation, which rides on the schema so that an API document reads
 * both at once (lib/v0/openapi-params.ts, queryParameters): its description, an example, and — only where the validator parses text into
 * something the generator cannot describe (a bbox into numbers, a limit clamped to its maximum) — the JSON Schema
 * of the value as the document states it: with a `type`, it stands for the generated schema; without one, it adds
 * to it (a default the handler applies).
 */
export const doc = <S extends v.GenericSchema>(
  schema: S,
  description: string,
  example?: string,
  openapi?: Record<string, unknown>,
) =>
  v.pipe(
    schema,
    v.description(description),
    v.examples(example === undefined ? [] : [example]),
    v.metadata({ openapi: openapi ?? {} }),
  );

/** `near=lon,lat`: the centre of a proximity search, in degrees (CRS84). */
export const nearParam = readParam((value) => {
  const parts = value.split(",").map((s) => s.trim());
  if (parts.length !== 2 || !parts.every((s) => NUMBER.test(s)))
    return "near must be 2 comma-separated numbers: lon,lat (degrees, CRS84)";
  const [lon, lat] = parts.map(Number) as [number, number];
  if (!(lon >= -180 && lon <= 180)) return `near longitude (${lon}) must lie in [-180, 180]`;
  if (!(lat >= -90 && lat <= 90)) return `near latitude (${lat}) must lie in [-90, 90]`;
  return { lon, lat };
});

/**
 * `radius`: metres, more than 0 and at most `max` (half the Earth's circumference: every point lies within it).
 * Decimal numbers are allowed.
 */
export const radiusParam = (max: number) =>
  v.pipe(
    v.string(),
    v.regex(NUMBER, `radius must be a number of metres, more than 0 and at most ${max}`),
    v.transform(Number),
    v.number(),
    v.gtValue(0, "radius must be more than 0 (metres)"),
    v.maxValue(max, `radius must be at most ${max} metres (half the Earth's circumference)`),
  );
