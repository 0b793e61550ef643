import {
  OffchainAttestationVersion,
  type SignedOffchainAttestation,
} from "@ethereum-attestation-service/eas-sdk";
import { Wallet } from "ethers";
import { type Address, type Hex, hashTypedData, keccak256, recoverTypedDataAddress, toHex } from "viem";
import { beforeEach, describe, expect, it } from "vitest";
import { attestTypes, readPublication, type SignedOffchain } from "../../lib/offchain/formats.js";
import { attestationDigest, forgetSigners, signatureStats } from "../../lib/offchain/signature.js";
import { recoverAttester } from "../../lib/offchain/verify.js";
import { jsonOf, nowSeconds, offchainOf, publisher, signOffchain } from "../helpers/offchain.js";

/**
 * The signature check of lib/offchain/signature.ts against the reference it replaced: viem's
 * recoverTypedDataAddress over the EAS types. Attestations are signed by the EAS SDK; every variant of a signature
 * (other forms of the same one, tampered ones) gets the same decision from both, with the signer's key unknown
 * (a full recovery) and known (the shortcut).
 */

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
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
    "the parity packed into s (EIP-2098)": { v, r, s: word(S | (BigInt(bit) << 255n)) },
    "r + 1": { v, r: word(R + 1n), s: sv },
    "r = 0": { v, r: word(0n), s: sv },
    "s = 0": { v, r, s: word(0n) },
    "r = n": { v, r: word(N), s: sv },
    "s = n": { v, r, s: word(N) },
    "s + n (s mod n as signed)": { v, r, s: word(S + N) },
    "another key's signature of the same attestation": theirs.signature,
  };
}

beforeEach(() => forgetSigners());

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

describe("the signature's decision is recovery's, with the signer's key unknown and known", () => {
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
          for (const [name, signature] of Object.entries(variants(s, read(theirs)))) {
            const variant = { ...s, signature };
            const expected = await reference(variant);
            forgetSigners();
            expect(await decision(variant), `${name}, signer unknown`).toBe(expected);
            // The signer's key known: a publication of theirs was taken before.
            expect(await decision(s)).toBe(publisher.address);
            const before = signatureStats.shortcut;
            expect(await decision(variant), `${name}, signer known`).toBe(expected);
            // Named signer, known key: a signature that is accepted took the shortcut.
            if (signer && expected !== "refused") expect(signatureStats.shortcut, name).toBe(before + 1);
          }
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
  });

  it("a known signer's key is not another signer's: their signatures, named as them, are checked by recovery", async () => {
    const mine = read(await signed(2, publisher, "0x01"), publisher.address);
    const theirs = read(await signed(2, other, "0x02"), other.address);
    expect(await decision(mine)).toBe(publisher.address);
    expect(await decision(theirs)).toBe(other.address);
    // Their signature named as mine, and mine as theirs, with both keys known.
    expect(await decision({ ...theirs, signer: publisher.address as Address })).toBe("refused");
    expect(await decision({ ...mine, signer: other.address as Address })).toBe("refused");
    expect(await decision(mine)).toBe(publisher.address);
    expect(await decision(theirs)).toBe(other.address);
  });

  it("many signers: the instance keeps a bounded number, and those it forgot are recovered as before", async () => {
    const wallets = Array.from({ length: 80 }, (_, i) => new Wallet(word(BigInt(i + 1000))));
    const all = await Promise.all(
      wallets.map(async (w) => read(await signed(2, w, "0x05", { time: nowSeconds() }), w.address)),
    );
    for (const s of all) expect(await decision(s)).toBe(s.signer);
    // The most recent are kept (the shortcut), the oldest were let go (recovered again).
    let before = { ...signatureStats };
    for (const s of all.slice(-10)) expect(await decision(s)).toBe(s.signer);
    expect(signatureStats.shortcut - before.shortcut).toBe(10);
    before = { ...signatureStats };
    for (const s of all.slice(0, 10)) expect(await decision(s)).toBe(s.signer);
    expect(signatureStats.recovered - before.recovered).toBe(10);
  });
});
