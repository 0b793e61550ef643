import {
  OffchainAttestationVersion,
  type SignedOffchainAttestation,
} from "@ethereum-attestation-service/eas-sdk";
import { Wallet } from "ethers";
import fc from "fast-check";
import { isPoint, recover } from "tiny-secp256k1";
import {
  type Address,
  type Hex,
  hashTypedData,
  keccak256,
  recoverAddress,
  recoverTypedDataAddress,
  toHex,
} from "viem";
import { describe, expect, it } from "vitest";
import { attestTypes, readPublication, type SignedOffchain } from "../../lib/offchain/formats.js";
import { attestationDigest, recoverSigner } from "../../lib/offchain/signature.js";
import { recoverAttester } from "../../lib/offchain/verify.js";
import { jsonOf, nowSeconds, offchainOf, publisher, signOffchain } from "../helpers/offchain.js";

/**
 * The signature check of lib/offchain/signature.ts (libsecp256k1's recovery, tiny-secp256k1) against the reference
 * it replaced: viem's recoverTypedDataAddress over the EAS types (@noble/curves' recovery). Attestations are signed
 * by the EAS SDK; every variant of a signature (other forms of the same one, tampered ones) gets the same decision
 * from both, the package naming its signer or not; and so do arbitrary (r, s, v) over arbitrary digests.
 */

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** The field's prime: an r in [n, p) is a point's x that only a recovery id of 2 or 3 could name. */
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const DEVNET = { chainId: 31337, eas: "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address };
const other = new Wallet("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const word = (x: bigint) => `0x${x.toString(16).padStart(64, "0")}` as Hex;

async function signed(
  version: OffchainAttestationVersion,
  wallet: Wallet,
  data: Hex,
  extra: { time?: bigint; expirationTime?: bigint } = {},
): Promise<SignedOffchainAttestation> {
  return signOffchain(
    offchainOf(DEVNET, version),
    { schema: keccak256(toHex("a schema")), data, ...extra },
    wallet,
  );
}

/** The SDK's object read as a publication: its { sig, signer } package (signer named) or bare. */
const read = (sig: SignedOffchainAttestation, signer?: string): SignedOffchain =>
  readPublication(JSON.parse(jsonOf(signer ? { sig, signer } : sig)));

/** Today's decision as it was made before: viem's recovery, and the named signer must be its address. */
async function reference(s: SignedOffchain): Promise<string> {
  try {
    const address = await recoverTypedDataAddress({
      domain: s.domain,
      types: { Attest: attestTypes(s.version) },
      primaryType: "Attest",
      message: { version: s.version, ...s.message },
      signature: `${s.signature.r}${s.signature.s.slice(2)}${(s.signature.v < 27 ? s.signature.v + 27 : s.signature.v).toString(16)}`,
    } as Parameters<typeof recoverTypedDataAddress>[0]);
    if (s.signer && address.toLowerCase() !== s.signer.toLowerCase()) return "refused";
    return address;
  } catch {
    return "refused";
  }
}

const decision = (s: SignedOffchain) =>
  recoverAttester(s).then(
    (a) => a as string,
    () => "refused",
  );

/** Other forms of the same signature, and tampered ones: name → signature. */
function variants(s: SignedOffchain, theirs: SignedOffchain): Record<string, SignedOffchain["signature"]> {
  const { v, r, s: sv } = s.signature;
  const [R, S] = [BigInt(r), BigInt(sv)];
  const bit = v >= 27 ? v - 27 : v;
  const flipped = bit === 0 ? 28 : 27;
  return {
    "as signed": { v, r, s: sv },
    "v as a y parity (0 or 1)": { v: bit, r, s: sv },
    "the high-s twin (n - s, the other parity)": { v: flipped, r, s: word(N - S) },
    "n - s with the same parity": { v, r, s: word(N - S) },
    "the other parity": { v: flipped, r, s: sv },
    "the other parity as 0 or 1": { v: 1 - bit, r, s: sv },
    "the parity packed into s (EIP-2098)": { v, r, s: word(S | (BigInt(bit) << 255n)) },
    "r + 1": { v, r: word(R + 1n), s: sv },
    "r = 0": { v, r: word(0n), s: sv },
    "s = 0": { v, r, s: word(0n) },
    "r = n": { v, r: word(N), s: sv },
    "s = n": { v, r, s: word(N) },
    "r + n (beyond the order)": { v, r: word(N + R), s: sv },
    "r = p - 1": { v, r: word(P - 1n), s: sv },
    "r = 2^256 - 1": { v, r: word(2n ** 256n - 1n), s: sv },
    "s = 2^256 - 1": { v, r, s: word(2n ** 256n - 1n) },
    "r = n - 1": { v, r: word(N - 1n), s: sv },
    "s = n - 1": { v, r, s: word(N - 1n) },
    "r = 1": { v, r: word(1n), s: sv },
    "s = 1": { v, r, s: word(1n) },
    "s + n (s mod n as signed)": { v, r, s: word(S + N) },
    "another key's signature of the same attestation": theirs.signature,
  };
}

describe("the EIP-712 digest", () => {
  it("is viem's hashTypedData of the EAS types, for versions 1 and 2 and extreme values", async () => {
    for (const version of [OffchainAttestationVersion.Version1, OffchainAttestationVersion.Version2]) {
      for (const extra of [
        {},
        { time: 0n, expirationTime: 2n ** 64n - 1n },
        { time: 2n ** 64n - 1n, expirationTime: 1n },
      ]) {
        for (const data of ["0x", "0x00", toHex("x".repeat(1000))] as Hex[]) {
          const sig = await signed(version, publisher, data, extra);
          const s = read(sig, publisher.address);
          const viem = hashTypedData({
            domain: s.domain,
            types: { Attest: attestTypes(s.version) },
            primaryType: "Attest",
            message: { version: s.version, ...s.message },
          } as Parameters<typeof hashTypedData>[0]);
          expect(toHex(attestationDigest(s))).toBe(viem);
        }
      }
    }
  });

  it("depends on every field of the domain (a cached separator is its own domain's)", async () => {
    const s = read(await signed(2, publisher, "0x1234"), publisher.address);
    const base = toHex(attestationDigest(s));
    const changed = [
      { ...s.domain, version: "1.2.0" },
      { ...s.domain, chainId: s.domain.chainId + 1n },
      { ...s.domain, verifyingContract: other.address as Address },
    ].map((domain) => toHex(attestationDigest({ ...s, domain })));
    expect(new Set([base, ...changed]).size).toBe(4);
    expect(toHex(attestationDigest(s))).toBe(base);
  });
});

describe("the signature's decision is recovery's, as viem's was", () => {
  for (const version of [OffchainAttestationVersion.Version1, OffchainAttestationVersion.Version2]) {
    it(`offchain version ${version}: every form and tampering of an SDK signature`, async () => {
      for (let i = 0; i < 4; i++) {
        const mine = await signed(version, publisher, toHex(`record ${i}`));
        // (the same message, its salt too, signed by another key)
        const theirs = await offchainOf(DEVNET, version).signOffchainAttestation(
          { ...mine.message } as never,
          other,
        );
        for (const signer of [publisher.address, undefined]) {
          const s = read(mine, signer);
          const decided: string[] = [];
          for (const [name, signature] of Object.entries(variants(s, read(theirs)))) {
            const variant = { ...s, signature };
            const expected = await reference(variant);
            expect(await decision(variant), `${name}, signer ${signer ?? "not named"}`).toBe(expected);
            decided.push(expected);
          }
          // Both outcomes occur: the signer's own forms are taken, the tampered ones refused.
          expect(decided, String(signer)).toContain(publisher.address);
          expect(decided, String(signer)).toContain("refused");
        }
      }
    });
  }

  it("the high-s twin and v as a y parity are taken, the other parity is not (the cases an x-only check confuses)", async () => {
    const s = read(await signed(2, publisher, "0xabcd"), publisher.address);
    const v = variants(s, s);
    expect(await decision(s)).toBe(publisher.address);
    expect(await decision({ ...s, signature: v["the high-s twin (n - s, the other parity)"]! })).toBe(
      publisher.address,
    );
    expect(await decision({ ...s, signature: v["v as a y parity (0 or 1)"]! })).toBe(publisher.address);
    expect(await decision({ ...s, signature: v["n - s with the same parity"]! })).toBe("refused");
    expect(await decision({ ...s, signature: v["the other parity"]! })).toBe("refused");
    expect(await decision({ ...s, signature: v["the other parity as 0 or 1"]! })).toBe("refused");
  });

  it("v is read as 0, 1, 27 or 28; any other is refused here too (formats.ts refuses it first)", async () => {
    const s = read(await signed(2, publisher, "0xbeef"), publisher.address);
    const bit = s.signature.v >= 27 ? s.signature.v - 27 : s.signature.v;
    for (const v of [bit, bit + 27])
      expect(await decision({ ...s, signature: { ...s.signature, v } })).toBe(publisher.address);
    for (const v of [1 - bit, 28 - bit])
      expect(await decision({ ...s, signature: { ...s.signature, v } })).toBe("refused");
    for (const v of [2, 3, 29, 30, 35, 37])
      expect(() => recoverSigner({ ...s, signature: { ...s.signature, v } }, attestationDigest(s))).toThrow();
    // A recovery id of 2 or 3 (x = r + n) is not one EAS's signers write: refused even for an r below p - n, where
    // libsecp256k1 would recover a key from it.
    let r = 1n;
    while (!isPoint(Buffer.from(`02${(r + N).toString(16)}`, "hex"))) r++;
    const low = { r: word(r), s: s.signature.s };
    const digest = attestationDigest(s);
    const compact = Buffer.from(`${low.r.slice(2)}${low.s.slice(2)}`, "hex");
    for (const id of [2, 3] as const) {
      expect(recover(digest, compact, id, false)).not.toBeNull();
      for (const v of [id, id + 27])
        expect(() => recoverSigner({ ...s, signature: { ...low, v } }, digest), `v ${v}`).toThrow();
    }
  });

  it("a signer's signature is not another signer's: theirs named as mine, and mine as theirs, are refused", async () => {
    const mine = read(await signed(2, publisher, "0x01"), publisher.address);
    const theirs = read(await signed(2, other, "0x02"), other.address);
    expect(await decision(mine)).toBe(publisher.address);
    expect(await decision(theirs)).toBe(other.address);
    expect(await decision({ ...theirs, signer: publisher.address as Address })).toBe("refused");
    expect(await decision({ ...mine, signer: other.address as Address })).toBe("refused");
    expect(await decision(mine)).toBe(publisher.address);
    expect(await decision(theirs)).toBe(other.address);
  });

  it("many signers: each signature recovers its own signer", async () => {
    const wallets = Array.from({ length: 80 }, (_, i) => new Wallet(word(BigInt(i + 1000))));
    const all = await Promise.all(
      wallets.map(async (w) => read(await signed(2, w, "0x05", { time: nowSeconds() }), w.address)),
    );
    for (const s of all) expect(await decision(s)).toBe(s.signer);
    for (const s of all.slice(0, 10))
      expect(await decision({ ...s, signer: all[79]!.signer })).toBe("refused");
  });

  it("arbitrary (r, s, v) over arbitrary digests: the same address as viem's recoverAddress, or refused by both", async () => {
    const scalar = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
      fc.bigInt({ min: 1n, max: N - 1n }),
      fc.constantFrom(0n, 1n, 2n, N - 1n, N, N + 1n, P - 1n, P, 2n ** 256n - 1n),
    );
    const digest = fc.oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.constantFrom(new Uint8Array(32), new Uint8Array(32).fill(0xff)),
    );
    let recovered = 0;
    await fc.assert(
      fc.asyncProperty(digest, scalar, scalar, fc.constantFrom(0, 1, 27, 28), async (h, r, sv, v) => {
        const signature = { v, r: word(r), s: word(sv) };
        const viem = await recoverAddress({
          hash: toHex(h),
          signature: `${signature.r}${signature.s.slice(2)}${(v < 27 ? v + 27 : v).toString(16)}` as Hex,
        }).then(
          (a) => a as string,
          () => "refused",
        );
        let mine: string;
        try {
          mine = recoverSigner({ signature } as SignedOffchain, h);
        } catch {
          mine = "refused";
        }
        expect(mine).toBe(viem);
        if (mine !== "refused") recovered++;
      }),
      { numRuns: 300 },
    );
    // The property saw keys recovered, not only refusals.
    expect(recovered).toBeGreaterThan(30);
  });
});
