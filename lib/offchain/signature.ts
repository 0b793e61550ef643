import { invert, mod } from "@noble/curves/abstract/modular";
import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { type Address, getAddress } from "viem";
import { attestTypes, type SignedOffchain } from "./formats.js";

/*
 * The EIP-712 signature of an off-chain attestation, checked with the primitives viem itself uses (@noble/curves'
 * secp256k1, @noble/hashes' keccak), without viem's generic typed-data encoder and with a shortcut for signers seen
 * before. Publishing is CPU-bound, and recovering a public key in JavaScript is most of it.
 *
 * - The digest: EAS's types are fixed per offchain version and every field is one 32-byte word, so the struct is
 *   hashed from a fixed layout, and the domain separator is computed once per domain. The field values are those
 *   formats.ts has already validated (sizes, ranges, addresses), which is what viem's encoder checks.
 * - The attester: the public key the signature recovers (Signature.recoverPublicKey, as viem's recoverPublicKey
 *   calls it), and its address.
 * - Signers seen before (a bounded, per-instance cache of address → recovered public key): when the package names
 *   its signer and that signer's key is known, the signature is checked against that key (u1·G + u2·P, with a
 *   window table of P) and must give the very point R that recovery would rebuild from r and the recovery bit (the
 *   same x, not just the same x mod n, and the same parity of y). Then recovery would give exactly that key
 *   (Q = r⁻¹(s·R − h·G) = P), so the decision is recovery's. Anything else (another key, a wrong parity, r or s out
 *   of range) falls back to the full recovery, which decides as it always did: the shortcut can only say yes where
 *   recovery says yes.
 */

const { Signature, ProjectivePoint: Point, CURVE, utils } = secp256k1;
type Point = InstanceType<typeof Point>;
const N = CURVE.n;
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

const addressOf = (key: Point): Address =>
  getAddress(`0x${Buffer.from(keccak_256(key.toRawBytes(false).subarray(1)).subarray(12)).toString("hex")}`);

/*
 * Multiplication by window tables. secp256k1's endomorphism φ(x, y) = (β·x, y) = λ·(x, y) splits a scalar k into
 * k1 + k2·λ with k1, k2 below 2^128, and @noble/curves sizes its window tables (utils.precompute) for such halves:
 * a table serves a half-size scalar only (a full-size one through multiplyUnsafe would read past the table and give
 * a wrong point), so every product below goes through the split: k·P = k1·P + k2·φ(P), each half by its own table.
 */
const { beta, splitScalar } = (CURVE as unknown as { endo: { beta: bigint; splitScalar: Split } }).endo;
type Split = (k: bigint) => { k1neg: boolean; k1: bigint; k2neg: boolean; k2: bigint };
type Tabled = { p: Point; phi: Point };

function tabled(key: Point, window: number): Tabled {
  const { x, y } = key.toAffine();
  // The generator has its table already (noble builds it for signing); another key gets a point of its own.
  const p = key === Point.BASE ? key : utils.precompute(window, Point.fromAffine({ x, y }));
  return { p, phi: utils.precompute(window, Point.fromAffine({ x: CURVE.Fp.mul(x, beta), y })) };
}

function times(t: Tabled, k: bigint): Point {
  const { k1neg, k1, k2neg, k2 } = splitScalar(k);
  const a = t.p.multiplyUnsafe(k1);
  const b = t.phi.multiplyUnsafe(k2);
  return (k1neg ? a.negate() : a).add(k2neg ? b.negate() : b);
}

/** The generator's pair of tables, φ(G)'s built on the first shortcut. */
let generator: Tabled | undefined;

/**
 * Signers seen before, by lowercase address: their public key, its tables built on its second use (so a signer seen
 * once costs a recovery and no more, whoever sends new keys). Bounded, least recently used first out: a window of 5
 * bits is two tables of 27 × 16 points per signer (some 150 kB), so the instance keeps some 10 MB at most; a larger
 * window saves a few additions per check for several times the memory and the time to build.
 */
const KNOWN_MAX = 64;
const WINDOW = 5;
type Known = { key: Point; address: Address; tables?: Tabled };
const known = new Map<string, Known>();

function remember(key: Point, address: Address): void {
  const id = address.toLowerCase();
  if (known.has(id)) return;
  if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value!);
  known.set(id, { key, address });
}

/** What recoverSigner did, for the benchmark and the tests: how many signatures took the shortcut. */
export const signatureStats = { shortcut: 0, recovered: 0 };

/** The recovery bit of v as viem reads it (0, 1, 27, 28; formats.ts admits no other). */
const recoveryBit = (v: number) => (v >= 27 ? v - 27 : v);

/**
 * Whether (r, s, v) over `digest` is the signature of the known key: u1·G + u2·P (u1 = h/s, u2 = r/s) is the point
 * R recovery would rebuild (x = r exactly, y of the recovery bit's parity).
 */
function signedBy(k: Known, digest: Uint8Array, r: bigint, s: bigint, bit: number): boolean {
  if (r <= 0n || r >= N || s <= 0n || s >= N) return false;
  generator ??= tabled(Point.BASE, 8);
  k.tables ??= tabled(k.key, WINDOW);
  const h = mod(BigInt(`0x${Buffer.from(digest).toString("hex")}`), N);
  const sInverse = invert(s, N);
  const sum = times(generator, mod(h * sInverse, N)).add(times(k.tables, mod(r * sInverse, N)));
  if (sum.equals(Point.ZERO)) return false;
  const { x, y } = sum.toAffine();
  return x === r && Number(y & 1n) === bit;
}

/**
 * The address that signed `digest` with s.signature: the signer named in the package when its known key verifies
 * it, else the address of the key recovery gives. Throws what recovery throws on an invalid signature.
 */
export function recoverSigner(s: SignedOffchain, digest: Uint8Array): Address {
  const r = BigInt(s.signature.r);
  const sv = BigInt(s.signature.s);
  const bit = recoveryBit(s.signature.v);
  const k = s.signer ? known.get(s.signer.toLowerCase()) : undefined;
  if (k && signedBy(k, digest, r, sv, bit)) {
    // Most recently used last: the first out is the one unused longest.
    known.delete(k.address.toLowerCase());
    known.set(k.address.toLowerCase(), k);
    signatureStats.shortcut++;
    return k.address;
  }
  const key = new Signature(r, sv).addRecoveryBit(bit).recoverPublicKey(digest);
  const address = addressOf(key);
  signatureStats.recovered++;
  // Only a signer this signature is accepted for: one the package names, or the attester of a bare one.
  if (!s.signer || s.signer.toLowerCase() === address.toLowerCase()) remember(key, address);
  return address;
}

/** Forgets the known signers (the tests, to take either path on purpose). */
export function forgetSigners(): void {
  known.clear();
}
