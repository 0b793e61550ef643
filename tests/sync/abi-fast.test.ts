import fc from "fast-check";
import { encodeAbiParameters, type Hex, parseAbiParameters } from "viem";
import { describe, expect, it } from "vitest";
import { decodeAggregate3, decodeAttestation } from "../../lib/sync/abi-fast.js";
import { onchainAttestation } from "../helpers/attestation.js";

const ATTESTATION = parseAbiParameters(
  "(bytes32 uid, bytes32 schema, uint64 time, uint64 expirationTime, uint64 revocationTime, bytes32 refUID, address recipient, address attester, bool revocable, bytes data)",
);
const RESULTS = parseAbiParameters("(bool success, bytes returnData)[]");

const hexOf = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const bytes = fc.uint8Array({ maxLength: 300 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

const attestation = fc.record({
  uid: hexOf(32),
  schema: hexOf(32),
  time: u64,
  expirationTime: u64,
  revocationTime: u64,
  refUID: hexOf(32),
  recipient: hexOf(20),
  attester: hexOf(20),
  revocable: fc.boolean(),
  data: bytes,
});

describe("direct ABI decoders agree with viem", () => {
  it("getAttestation's Attestation struct", () => {
    fc.assert(
      fc.property(attestation, (a) => {
        const encoded = encodeAbiParameters(ATTESTATION, [a]);
        expect(decodeAttestation(encoded)).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });

  it("aggregate3's (bool, bytes)[] results", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ success: fc.boolean(), returnData: bytes }), { maxLength: 20 }),
        (results) => {
          expect(decodeAggregate3(encodeAbiParameters(RESULTS, [results]))).toEqual(results);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("rejects truncated or absurd data instead of reading past it", () => {
    // viem encodes only addresses in one case (or checksummed).
    const addresses = { recipient: `0x${"33".repeat(20)}`, attester: `0x${"44".repeat(20)}` } as const;
    const encoded = encodeAbiParameters(ATTESTATION, [onchainAttestation("0xdeadbeef", addresses)]);
    expect(() => decodeAttestation(encoded.slice(0, 200) as Hex)).toThrow();
    expect(() => decodeAggregate3(`0x${"f".repeat(128)}`)).toThrow();
    expect(() => decodeAggregate3("0x")).toThrow();
  });
});
