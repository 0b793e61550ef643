import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { attestationRow, type OnchainAttestation } from "../../lib/sync/decode-attestation.js";

const chain = { name: "devnet", chainId: 31337 };
const at = { blockNumber: 7, blockHash: "0xAB" as Hex, txHash: "0xCD" as Hex, logIndex: 3 };
const attestation = (data: Hex, extra: Partial<OnchainAttestation> = {}): OnchainAttestation => ({
  uid: `0x${"A1".repeat(32)}`,
  schema: `0x${"b2".repeat(32)}`,
  time: 1_700_000_000n,
  expirationTime: 0n,
  revocationTime: 0n,
  refUID: `0x${"00".repeat(32)}`,
  recipient: `0x${"C3".repeat(20)}`,
  attester: `0x${"D4".repeat(20)}`,
  revocable: true,
  data,
  ...extra,
});

describe("attestation → row", () => {
  it("decodes the schema data and the location; addresses and hashes lowercase", () => {
    const row = attestationRow(
      chain,
      attestation(
        encodeLocationProof({
          eventTimestamp: 1_700_000_100n,
          srs: "EPSG:4326",
          locationType: "coordinate-decimal+lat-lon",
          location: "52.52, 13.405",
          recipeType: ["gps"],
          recipePayload: ["0x01"],
          mediaType: ["image/jpeg"],
          mediaData: ["ipfs://x"],
          memo: "Berlin",
        }),
        { expirationTime: 1_800_000_000n },
      ),
      at,
    );
    expect(row).toMatchObject({
      uid: `0x${"a1".repeat(32)}`,
      prover: `0x${"d4".repeat(20)}`,
      subject: `0x${"c3".repeat(20)}`,
      blockHash: "0xab",
      decodeError: null,
      eventTimestamp: new Date(1_700_000_100_000),
      eventTimestampRaw: "1700000100",
      attestationTime: new Date(1_700_000_000_000),
      expirationTime: new Date(1_800_000_000_000),
      refUid: null,
      longitude: 13.405,
      latitude: 52.52,
      minLon: 13.405,
      maxLat: 52.52,
      recipeType: ["gps"],
      recipePayload: ["0x01"],
      mediaData: ["ipfs://x"],
      memo: "Berlin",
    });
  });

  it("undecodable data is kept raw with decode_error; nothing else is guessed", () => {
    for (const data of ["0xdeadbeef", "0x", `0x${"ff".repeat(64)}`] as Hex[]) {
      const row = attestationRow(chain, attestation(data), at);
      expect(row.decodeError, data).toBeTruthy();
      expect(row.data).toBe(data);
      expect(row.location ?? null).toBeNull();
      expect(row.longitude ?? null).toBeNull();
    }
  });

  it("NUL characters (valid on chain, not in PostgreSQL text) become U+FFFD", () => {
    const row = attestationRow(
      chain,
      attestation(encodeLocationProof({ locationType: "address", location: "a\u0000b", memo: "\u0000" })),
      at,
    );
    expect(row.location).toBe("a\uFFFDb");
    expect(row.memo).toBe("\uFFFD");
  });

  it("eventTimestamp 0 or past year 9999 is null, with the exact raw value kept", () => {
    const zero = attestationRow(
      chain,
      attestation(encodeLocationProof({ locationType: "x", location: "y" })),
      at,
    );
    expect(zero).toMatchObject({ eventTimestamp: null, eventTimestampRaw: "0" });
    const huge = 2n ** 255n;
    const row = attestationRow(
      chain,
      attestation(encodeLocationProof({ eventTimestamp: huge, locationType: "x", location: "y" })),
      at,
    );
    expect(row).toMatchObject({ eventTimestamp: null, eventTimestampRaw: huge.toString() });
    // The last second PostgreSQL takes as ISO text is 9999-12-31T23:59:59Z; a second later is null, for every time.
    const edge = (seconds: bigint) =>
      attestationRow(
        chain,
        attestation(encodeLocationProof({ eventTimestamp: seconds, locationType: "x", location: "y" }), {
          expirationTime: seconds,
        }),
        at,
      );
    const last = new Date("9999-12-31T23:59:59Z");
    expect(edge(253_402_300_799n)).toMatchObject({ eventTimestamp: last, expirationTime: last });
    expect(edge(253_402_300_800n)).toMatchObject({
      eventTimestamp: null,
      eventTimestampRaw: "253402300800",
      expirationTime: null,
    });
  });
});
