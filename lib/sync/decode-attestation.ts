import { decodeAbiParameters, type Hex, parseAbiParameters, zeroHash } from "viem";
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

/** The schema's ABI parameters (decoding here; lib/devnet encodes with the same). */
export const locationSchemaParams = parseAbiParameters(LOCATION_SCHEMA);
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
 * Turns an attestation into a row. The schema data is decoded with viem; data that does not decode (EAS accepts any
 * bytes) is stored with decode_error set and the raw data kept, so it never stalls the cursor. The location is decoded
 * here, at index time, so read routes never need viem or a decoder.
 */
export function attestationRow(
  chain: { name: string; chainId: number },
  a: OnchainAttestation,
  at: LogPosition,
): NewLocationProofRow {
  const base: NewLocationProofRow = {
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
    blockNumber: at.blockNumber,
    blockHash: at.blockHash.toLowerCase(),
    txHash: at.txHash.toLowerCase(),
    logIndex: at.logIndex,
    data: a.data,
  };
  let decoded: readonly unknown[];
  try {
    decoded = decodeAbiParameters(locationSchemaParams, Buffer.from(a.data.slice(2), "hex"));
  } catch (error) {
    const message = (error as { shortMessage?: string }).shortMessage ?? String(error);
    return { ...base, decodeError: clean(message).slice(0, 500) };
  }
  const [eventTimestamp, srs, locationType, location, recipeType, recipePayload, mediaType, mediaData, memo] =
    decoded as [bigint, string, string, string, string[], Hex[], string[], string[], string];
  const loc = decodeLocation({ locationType, location, srs });
  return {
    ...base,
    decodeError: null,
    eventTimestamp: date(eventTimestamp),
    eventTimestampRaw: eventTimestamp.toString(),
    srs: clean(srs),
    locationType: clean(locationType),
    location: clean(location),
    recipeType: recipeType.map(clean),
    recipePayload: [...recipePayload],
    mediaType: mediaType.map(clean),
    mediaData: mediaData.map(clean),
    memo: clean(memo),
    ...locationColumns(loc),
  };
}
