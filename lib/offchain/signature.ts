import { keccak_256 } from "@noble/hashes/sha3";
import { recover } from "tiny-secp256k1";
import { type Address, getAddress } from "viem";
import { attestTypes, type SignedOffchain } from "./formats.js";

/*
 * The EIP-712 signature of an off-chain attestation, checked without viem's generic typed-data encoder: the digest
 * with @noble/hashes' keccak (as viem hashes it), the public key with libsecp256k1 compiled to WebAssembly
 * (tiny-secp256k1). Publishing is CPU-bound, and recovering a public key in JavaScript (@noble/curves, viem's own
 * curve code) was most of it.
 *
 * - The digest: EAS's types are fixed per offchain version and every field is one 32-byte word, so the struct is
 *   hashed from a fixed layout, and the domain separator is computed once per domain. The field values are those
 *   formats.ts has already validated (sizes, ranges, addresses), which is what viem's encoder checks.
 * - The attester: the public key the signature recovers (libsecp256k1's ECDSA recovery), and its address. Every
 *   signature is recovered: it is what decides, and it costs less than the check against a remembered signer's key
 *   in JavaScript that this module used to keep, so there is no per-instance state.
 * - Its WebAssembly module is compiled when this module is imported, which only the publishing path does
 *   (lib/offchain/publish.ts, imported on the first POST); the build ships the .wasm beside the code that reads it
 *   and refuses to put this package where a function loads it at import (scripts/build.ts).
 */

const encoder = new TextEncoder();
const text = (s: string) => keccak_256(encoder.encode(s));
const bytes = (hex: string) => Buffer.from(hex.slice(2), "hex");

const DOMAIN_TYPEHASH = text(
  "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
);
const typeHash = (version: 1 | 2) =>
  text(
    `Attest(${attestTypes(version)
      .map((f) => `${f.type} ${f.name}`)
      .join(",")})`,
  );
const ATTEST_TYPEHASH = { 1: typeHash(1), 2: typeHash(2) } as const;

/** Writes a uint (< 2^256) as the big-endian 32-byte word at `at`. */
function putUint(out: Uint8Array, at: number, value: bigint): void {
  let v = value;
  for (let i = at + 31; i >= at && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/** Domains are a few per network (the EAS version string may differ), bounded all the same: the client names it. */
const DOMAINS_MAX = 64;
const domains = new Map<string, Uint8Array>();

function domainSeparator(d: SignedOffchain["domain"]): Uint8Array {
  const key = `${d.chainId}:${d.verifyingContract}:${d.name}:${d.version}`;
  let separator = domains.get(key);
  if (!separator) {
    const words = new Uint8Array(32 * 5);
    words.set(DOMAIN_TYPEHASH, 0);
    words.set(text(d.name), 32);
    words.set(text(d.version), 64);
    putUint(words, 96, d.chainId);
    words.set(bytes(d.verifyingContract), 128 + 12);
    separator = keccak_256(words);
    if (domains.size >= DOMAINS_MAX) domains.clear();
    domains.set(key, separator);
  }
  return separator;
}

/** The EIP-712 digest EAS signs: keccak256(0x1901 ‖ domain separator ‖ hashStruct(Attest)). */
export function attestationDigest(s: SignedOffchain): Uint8Array {
  const m = s.message;
  const words = new Uint8Array(32 * (s.version === 2 ? 10 : 9));
  words.set(ATTEST_TYPEHASH[s.version], 0);
  putUint(words, 32, BigInt(s.version));
  words.set(bytes(m.schema), 64);
  words.set(bytes(m.recipient), 96 + 12);
  putUint(words, 128, m.time);
  putUint(words, 160, m.expirationTime);
  words[223] = m.revocable ? 1 : 0;
  words.set(bytes(m.refUID), 224);
  words.set(keccak_256(bytes(m.data)), 256);
  if (s.version === 2) words.set(bytes(m.salt!), 288);
  const whole = new Uint8Array(66);
  whole[0] = 0x19;
  whole[1] = 0x01;
  whole.set(domainSeparator(s.domain), 2);
  whole.set(keccak_256(words), 34);
  return keccak_256(whole);
}

/** The curve's order n: r and s must lie in [1, n − 1]. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The recovery bit of v as viem reads it (0, 1, 27, 28; formats.ts admits no other). */
const recoveryBit = (v: number) => (v >= 27 ? v - 27 : v);

/**
 * The address that signed `digest` with s.signature: the address of the public key recovery gives. Throws on an
 * invalid signature (verify.ts refuses it as such): r or s outside [1, n − 1], a v that is not 0, 1, 27 or 28, an r
 * that is no point's x, or a signature that recovers no key.
 */
export function recoverSigner(s: SignedOffchain, digest: Uint8Array): Address {
  const r = BigInt(s.signature.r);
  const sv = BigInt(s.signature.s);
  // The bounds @noble/curves' Signature enforced, checked here on the numbers themselves: the 64 bytes below would
  // otherwise drop the high digits of a longer word.
  if (r < 1n || r >= N || sv < 1n || sv >= N) throw new Error("r or s is not in [1, n - 1]");
  const bit = recoveryBit(s.signature.v);
  // Only the point whose x is r itself: a recovery id of 2 or 3 (x = r + n) is no v that EAS's signers write.
  if (bit !== 0 && bit !== 1) throw new Error(`v ${s.signature.v} is not 0, 1, 27 or 28`);
  const compact = new Uint8Array(64);
  putUint(compact, 0, r);
  putUint(compact, 32, sv);
  // 65 bytes, 0x04 ‖ x ‖ y; null when the signature recovers no key. A high s is recovered as it is (libsecp256k1's
  // recovery, like @noble/curves' recoverPublicKey before it, requires no low s): the twin (r, n − s) with the
  // other parity is the same signer's, as viem's recoverTypedDataAddress says.
  const key = recover(digest, compact, bit, false);
  if (!key) throw new Error("the signature recovers no key");
  return getAddress(`0x${Buffer.from(keccak_256(key.subarray(1)).subarray(12)).toString("hex")}`);
}
