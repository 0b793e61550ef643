import { type AbiParameter, decodeAbiParameters, type Hex, parseAbiParameters, zeroHash } from "viem";
import type { NewLocationProofRow } from "../../db/schema.js";
import { LOCATION_SCHEMA } from "../chains/schema.js";
import { locationColumns } from "../location/columns.js";
import { decodeLocation } from "../location/decode.js";

/** What EAS.getAttestation returns. */
export type OnchainAttestation = {
  uid: Hex;
  schema: Hex;
  time: bigint;
  expirationTime: bigint;
  revocationTime: bigint;
  refUID: Hex;
  recipient: Hex;
  attester: Hex;
  revocable: boolean;
  data: Hex;
};

export type LogPosition = { blockNumber: number; blockHash: Hex; txHash: Hex; logIndex: number };

/** The v0.1 schema's ABI parameters (lib/devnet encodes v0.1 proofs with the same). */
export const locationSchemaParams = parseAbiParameters(LOCATION_SCHEMA);

/**
 * The decoder whose output the decoded columns hold (location_proofs.decoder_version): rows of an older one are
 * decoded again from their stored data (lib/sync/redecode.ts). Raise it with a migration that moves the column's
 * default and the redecode index's predicate along.
 */
export const DECODER_VERSION = 2;

/** What an attestation is decoded against: its schema's parameters, and the protocol version the schema follows. */
export type DecodingSchema = {
  /** null when the schema's string is no ABI parameter list (an operator may allow any UID) */
  params: readonly AbiParameter[] | null;
  /** "0.1", "0.2", or null for a schema that is not the protocol's (allowed by UID) */
  protocolVersion: string | null;
};

/** The v0.1 schema's decoding (it is known by UID on every chain). */
export const V01_DECODING: DecodingSchema = { params: locationSchemaParams, protocolVersion: "0.1" };

/**
 * The last second stored as a time: 9999-12-31T23:59:59Z. Any uint64 is valid on chain, but a later instant is
 * written in ISO text with a six-digit signed year ("+010000-…"), which PostgreSQL refuses: one such attestation
 * failed its whole batch and stalled the chain's cursor. Later times are stored as null (eventTimestampRaw keeps
 * the exact value); the API's time filters end at year 9999 too.
 */
const MAX_DATE_SECONDS = 253_402_300_799n;

const date = (seconds: bigint): Date | null =>
  seconds > 0n && seconds <= MAX_DATE_SECONDS ? new Date(Number(seconds) * 1000) : null;

/** PostgreSQL text and jsonb cannot hold NUL; any bytes are valid on chain, so NUL becomes U+FFFD. */
const clean = (s: string): string => s.replaceAll("\u0000", "\uFFFD");

/**
 * The fields a record takes by name, each with the names that count for it (the v0.1 schema's camelCase, the
 * protocol's snake_case, and the spellings its libraries use) and the ABI types it takes them in. A field of another
 * type, a second field of the same role, and every other field stay in the application's fields.
 */
const ROLES = {
  srs: { names: ["srs"], types: /^string$/ },
  locationType: { names: ["location_type", "locationType"], types: /^string$/ },
  location: { names: ["location"], types: /^(string|bytes)$/ },
  eventTimestamp: {
    names: ["eventTimestamp", "event_timestamp", "eventTime", "event_time"],
    types: /^u?int\d*$/,
  },
  lpVersion: {
    names: ["lp_version", "lpVersion", "specVersion", "spec_version"],
    types: /^(string|u?int\d*)$/,
  },
  recipeType: { names: ["recipeType", "recipe_type"], types: /^string(\[\])?$/ },
  recipePayload: { names: ["recipePayload", "recipe_payload"], types: /^bytes(\[\])?$/ },
  mediaType: { names: ["mediaType", "media_type"], types: /^string(\[\])?$/ },
  mediaData: { names: ["mediaData", "media_data"], types: /^string(\[\])?$/ },
  memo: { names: ["memo"], types: /^string$/ },
} as const;

type Role = keyof typeof ROLES;

const ROLE_OF = new Map<string, Role>(
  (Object.entries(ROLES) as [Role, (typeof ROLES)[Role]][]).flatMap(([role, r]) =>
    r.names.map((n) => [n, role] as const),
  ),
);

/** The names the record takes by role (the public documentation lists them from here). */
export const FIELD_NAMES: Readonly<Record<Role, readonly string[]>> = Object.fromEntries(
  Object.entries(ROLES).map(([role, r]) => [role, r.names]),
) as unknown as Record<Role, readonly string[]>;

/**
 * A decoded ABI value as JSON: integers that fit in 48 bits as numbers, wider ones as exact decimal strings; bytes
 * and addresses as lowercase hex; tuples as objects by component name (arrays when unnamed).
 */
function jsonValue(param: AbiParameter, value: unknown): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (array) {
    const item = { ...param, type: array[1]! } as AbiParameter;
    return (value as readonly unknown[]).map((v) => jsonValue(item, v));
  }
  if (param.type === "tuple") {
    const components = (param as { components: readonly AbiParameter[] }).components;
    const named = components.every((c) => c.name);
    const values = components.map((c, i) =>
      jsonValue(c, named ? (value as Record<string, unknown>)[c.name!] : (value as unknown[])[i]),
    );
    return named ? Object.fromEntries(components.map((c, i) => [c.name, values[i]])) : values;
  }
  const int = /^u?int(\d*)$/.exec(param.type);
  if (int) return Number(int[1] || 256) <= 48 ? Number(value) : (value as bigint).toString();
  if (typeof value === "string") return param.type === "string" ? clean(value) : value.toLowerCase();
  return value;
}

/** bytes as text when they are UTF-8 without control characters (what a writer meant), else as hex. */
function bytesText(hex: Hex): { text: string; isText: boolean } {
  const bytes = Buffer.from(hex.slice(2), "hex");
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
    if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return { text, isText: true };
  } catch {
    // not UTF-8
  }
  return { text: hex.toLowerCase(), isText: false };
}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/**
 * A Location Protocol version as major.minor ("1.0.0", "v0.2" → "1.0", "0.2"); undefined when the value does not read
 * as one (a bare number: is 1 version 1.0 or 0.1? not guessed).
 */
export function protocolVersionOf(raw: string | null): string | undefined {
  const m = /^v?(\d{1,3})\.(\d{1,3})(?:\.\d+)?(?:[-+][\w.+-]*)?$/i.exec(raw?.trim() ?? "");
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
}

/**
 * Turns an attestation into a row, decoding its data against its own schema and taking the record's fields by name
 * (ROLES); the schema's other fields are kept, decoded, as `applicationFields`. Data that does not decode (EAS
 * accepts any bytes) is stored with decode_error set and the raw data kept, so it never stalls the cursor. The
 * location is decoded here, at index time, so read routes never need viem or a decoder.
 */
export function attestationRow(
  chain: { name: string; chainId: number },
  schema: DecodingSchema,
  a: OnchainAttestation,
  at: LogPosition,
): NewLocationProofRow {
  const base: NewLocationProofRow = {
    ...attestationFields(chain, a),
    blockNumber: at.blockNumber,
    blockHash: at.blockHash.toLowerCase(),
    txHash: at.txHash.toLowerCase(),
    logIndex: at.logIndex,
    protocolVersion: schema.protocolVersion,
    decoderVersion: DECODER_VERSION,
  };
  return { ...base, ...decodedColumns(schema, a.data) };
}

/** What an attestation says of itself, signed on chain or off: what it is stored as, the same for both stores. */
export type AttestationFields = Pick<
  OnchainAttestation,
  "uid" | "schema" | "attester" | "recipient" | "time" | "expirationTime" | "revocable" | "refUID" | "data"
>;

/**
 * The columns an attestation's own fields fill, alike in location_proofs and offchain_records, so an off-chain
 * record reads as an on-chain one: addresses and uids lowercased, times as dates (or null past year 9999), the zero
 * refUID as null.
 */
export function attestationFields(chain: { name: string; chainId: number }, a: AttestationFields) {
  return {
    chainId: chain.chainId,
    chain: chain.name,
    uid: a.uid.toLowerCase(),
    schemaUid: a.schema.toLowerCase(),
    prover: a.attester.toLowerCase(),
    subject: a.recipient.toLowerCase(),
    attestationTime: date(a.time) ?? new Date(0),
    expirationTime: date(a.expirationTime),
    revocable: a.revocable,
    refUid: a.refUID === zeroHash ? null : a.refUID.toLowerCase(),
    data: a.data,
  };
}

/** The columns decoded from an attestation's data against its schema (what a re-decode refreshes). */
export function decodedColumns(
  schema: DecodingSchema,
  data: Hex,
): Omit<
  NewLocationProofRow,
  | "chainId"
  | "chain"
  | "uid"
  | "schemaUid"
  | "prover"
  | "subject"
  | "attestationTime"
  | "blockNumber"
  | "blockHash"
  | "txHash"
  | "logIndex"
  | "data"
> {
  const empty = {
    protocolVersion: schema.protocolVersion,
    decoderVersion: DECODER_VERSION,
    eventTimestamp: null,
    eventTimestampRaw: null,
    srs: null,
    locationType: null,
    location: null,
    recipeType: null,
    recipePayload: null,
    mediaType: null,
    mediaData: null,
    memo: null,
    lpVersion: null,
    applicationFields: null,
    locationTypeNormalized: null,
    decodeWarning: null,
    ...locationColumns({ geometry: null, longitude: null, latitude: null, bbox: null }),
  };
  if (!schema.params) return { ...empty, decodeError: "the schema's string is not a list of ABI parameters" };
  const params = schema.params;
  let values: readonly unknown[];
  try {
    values = decodeAbiParameters(params, Buffer.from(data.slice(2), "hex"));
  } catch (error) {
    const message = (error as { shortMessage?: string }).shortMessage ?? String(error);
    return { ...empty, decodeError: clean(message).slice(0, 500) };
  }
  const taken: Partial<Record<Role, { param: AbiParameter; value: unknown }>> = {};
  const application: Record<string, unknown> = {};
  params.forEach((param, i) => {
    const role = ROLE_OF.get(param.name ?? "");
    if (role && !taken[role] && ROLES[role].types.test(param.type)) taken[role] = { param, value: values[i] };
    else application[param.name || `field_${i}`] = jsonValue(param, values[i]);
  });
  const text = (role: Role): string | null => {
    const t = taken[role];
    return t ? clean(String(t.value)) : null;
  };
  let locationWarning: string | undefined;
  let location = text("location");
  if (taken.location?.param.type === "bytes") {
    const b = bytesText(taken.location.value as Hex);
    location = clean(b.text);
    if (!b.isText) locationWarning = "location is bytes that are not UTF-8 text; kept as hex";
  }
  const srs = text("srs");
  const locationType = text("locationType");
  const lpVersion = text("lpVersion");
  const eventTimestamp = taken.eventTimestamp ? BigInt(taken.eventTimestamp.value as bigint | number) : null;
  const strings = (role: Role): string[] | null => {
    const t = taken[role];
    if (!t) return null;
    return asList(t.value).map((v) =>
      role === "recipePayload" ? String(v).toLowerCase() : clean(String(v)),
    );
  };
  // Bytes that are no text are no location to decode (their hex would read as a geohash, say): kept, not read.
  const loc = decodeLocation({ locationType, location: locationWarning ? null : location, srs });
  return {
    ...empty,
    decodeError: null,
    // A negative time (an int field) is no instant; its raw value says what was written.
    eventTimestamp: eventTimestamp !== null && eventTimestamp > 0n ? date(eventTimestamp) : null,
    eventTimestampRaw: eventTimestamp?.toString() ?? null,
    srs,
    locationType,
    location,
    recipeType: strings("recipeType"),
    recipePayload: strings("recipePayload"),
    mediaType: strings("mediaType"),
    mediaData: strings("mediaData"),
    memo: text("memo"),
    lpVersion,
    protocolVersion: protocolVersionOf(lpVersion) ?? schema.protocolVersion,
    applicationFields: Object.keys(application).length ? application : null,
    ...locationColumns(loc),
    ...(locationWarning ? { decodeWarning: locationWarning } : {}),
  };
}
