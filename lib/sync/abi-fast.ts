import type { Hex } from "viem";
import type { OnchainAttestation } from "./decode-attestation.js";

/**
 * Direct decoders for the two fixed ABI layouts on the indexing hot path: Multicall3 `aggregate3`'s
 * `(bool success, bytes returnData)[]` and EAS `getAttestation`'s `Attestation` struct. They slice the hex string at
 * known word positions instead of going through viem's generic decoder, which is a large part of the indexing CPU
 * in a profile of a sync. Offsets and lengths are bounds-checked; anything malformed
 * throws. tests/sync/abi-fast.test.ts checks them against viem's decoder.
 */

const WORD = 64; // hex characters per 32-byte word

/** The word at byte offset `at` (relative to the start of the data) as hex characters, without 0x. */
function word(hex: Hex, at: number): string {
  const start = 2 + at * 2;
  if (start + WORD > hex.length) throw new Error("ABI data too short");
  return hex.slice(start, start + WORD);
}

/** A word holding a small unsigned integer (an offset or a length). */
function size(hex: Hex, at: number): number {
  const w = word(hex, at);
  if (!/^0{48}/.test(w)) throw new Error("ABI offset or length out of range");
  return Number.parseInt(w.slice(48), 16);
}

/** `bytes` whose length word is at byte offset `at`. */
function bytesAt(hex: Hex, at: number): Hex {
  const length = size(hex, at);
  const start = 2 + (at + 32) * 2;
  if (start + length * 2 > hex.length) throw new Error("ABI bytes out of range");
  return `0x${hex.slice(start, start + length * 2)}`;
}

/** aggregate3's return data: `(bool success, bytes returnData)[]`. */
export function decodeAggregate3(hex: Hex): { success: boolean; returnData: Hex }[] {
  const array = size(hex, 0);
  const n = size(hex, array);
  const heads = array + 32;
  const out: { success: boolean; returnData: Hex }[] = [];
  for (let i = 0; i < n; i++) {
    const tuple = heads + size(hex, heads + i * 32);
    out.push({
      success: /[1-9a-f]/.test(word(hex, tuple)),
      returnData: bytesAt(hex, tuple + size(hex, tuple + 32)),
    });
  }
  return out;
}

const bytes32 = (hex: Hex, at: number): Hex => `0x${word(hex, at)}`;
const address = (hex: Hex, at: number): Hex => `0x${word(hex, at).slice(24)}`;
const uint = (hex: Hex, at: number): bigint => BigInt(`0x${word(hex, at)}`);

/** getAttestation's return data: one dynamic `Attestation` tuple (addresses come back lowercase). */
export function decodeAttestation(hex: Hex): OnchainAttestation {
  const t = size(hex, 0);
  return {
    uid: bytes32(hex, t),
    schema: bytes32(hex, t + 32),
    time: uint(hex, t + 64),
    expirationTime: uint(hex, t + 96),
    revocationTime: uint(hex, t + 128),
    refUID: bytes32(hex, t + 160),
    recipient: address(hex, t + 192),
    attester: address(hex, t + 224),
    revocable: /[1-9a-f]/.test(word(hex, t + 256)),
    data: bytesAt(hex, t + size(hex, t + 288)),
  };
}
