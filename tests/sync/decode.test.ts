import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { DEVNET_SCHEMAS, encodeRecord, schemaUid } from "../../lib/devnet/schemas.js";
import { attestationRow, type OnchainAttestation, V01_DECODING } from "../../lib/sync/decode-attestation.js";
import { describeSchema } from "../../lib/sync/schemas.js";
import { onchainAttestation } from "../helpers/attestation.js";

const chain = { name: "devnet", chainId: 31337 };
const at = { blockNumber: 7, blockHash: "0xAB" as Hex, txHash: "0xCD" as Hex, logIndex: 3 };
/** The row of a v0.1 record of `input`, `extra` the attestation's own fields. */
const v01Row = (input: Parameters<typeof encodeLocationProof>[0], extra?: Partial<OnchainAttestation>) =>
  attestationRow(chain, V01_DECODING, onchainAttestation(encodeLocationProof(input), extra), at);

describe("attestation → row", () => {
  it("decodes the schema data and the location; addresses and hashes lowercase", () => {
    const row = v01Row(
      {
        eventTimestamp: 1_700_000_100n,
        srs: "EPSG:4326",
        locationType: "coordinate-decimal+lat-lon",
        location: "52.52, 13.405",
        recipeType: ["gps"],
        recipePayload: ["0x01"],
        mediaType: ["image/jpeg"],
        mediaData: ["ipfs://x"],
        memo: "Berlin",
      },
      { expirationTime: 1_800_000_000n },
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
      const row = attestationRow(chain, V01_DECODING, onchainAttestation(data), at);
      expect(row.decodeError, data).toBeTruthy();
      expect(row.data).toBe(data);
      expect(row.location ?? null).toBeNull();
      expect(row.longitude ?? null).toBeNull();
    }
  });

  it("NUL characters (valid on chain, not in PostgreSQL text) become U+FFFD", () => {
    const row = v01Row({ locationType: "address", location: "a\u0000b", memo: "\u0000" });
    expect(row.location).toBe("a\uFFFDb");
    expect(row.memo).toBe("\uFFFD");
  });

  it("eventTimestamp 0 or past year 9999 is null, with the exact raw value kept", () => {
    const zero = v01Row({ locationType: "x", location: "y" });
    expect(zero).toMatchObject({ eventTimestamp: null, eventTimestampRaw: "0" });
    const huge = 2n ** 255n;
    const row = v01Row({ eventTimestamp: huge, locationType: "x", location: "y" });
    expect(row).toMatchObject({ eventTimestamp: null, eventTimestampRaw: huge.toString() });
    // The last second PostgreSQL takes as ISO text is 9999-12-31T23:59:59Z; a second later is null, for every time.
    const edge = (seconds: bigint) =>
      v01Row({ eventTimestamp: seconds, locationType: "x", location: "y" }, { expirationTime: seconds });
    const last = new Date("9999-12-31T23:59:59Z");
    expect(edge(253_402_300_799n)).toMatchObject({ eventTimestamp: last, expirationTime: last });
    expect(edge(253_402_300_800n)).toMatchObject({
      eventTimestamp: null,
      eventTimestampRaw: "253402300800",
      expirationTime: null,
    });
  });
});

describe("decoding by name, against each attestation's own schema", () => {
  const decoding = (schema: string) => {
    const d = describeSchema(schemaUid(schema), schema);
    return { params: d.parsed!.params, protocolVersion: d.protocolVersion };
  };
  const rowOf = (schema: string, values: Record<string, unknown>) =>
    attestationRow(chain, decoding(schema), onchainAttestation(encodeRecord(schema, values)), at);

  it("the spec appendix's order: fields by name, the version as attested, the schema's protocol version", () => {
    const row = rowOf(DEVNET_SCHEMAS.appendix, {
      srs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
      location_type: "geojson-point",
      location: '{"type":"Point","coordinates":[13.405,52.52]}',
      lp_version: 2,
    });
    expect(row).toMatchObject({
      decodeError: null,
      srs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
      locationType: "geojson-point",
      locationTypeNormalized: "geojson-point",
      longitude: 13.405,
      latitude: 52.52,
      // A bare number is no version to read (1.0? 0.2?): kept raw, the schema's version stands.
      lpVersion: "2",
      protocolVersion: "0.2",
      // No event time in this schema, no application fields, none of v0.1's own fields.
      eventTimestamp: null,
      eventTimestampRaw: null,
      applicationFields: null,
      recipeType: null,
      memo: null,
      decodeWarning: null,
    });
  });

  it("the Dart order with an application's fields: those kept as one object, big integers as exact strings", () => {
    const row = rowOf(DEVNET_SCHEMAS.dart, {
      lp_version: "1.0.0",
      srs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
      location_type: "h3-index",
      location: "8928308280fffff",
      event_timestamp: 1_700_000_100n,
      memo: "a sensor reading",
      accuracy_m: 12,
      reading: 2n ** 200n,
      device: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      tags: [`0x${"ab".repeat(32)}`],
      verified: true,
    });
    expect(row).toMatchObject({
      protocolVersion: "1.0",
      lpVersion: "1.0.0",
      locationType: "h3-index",
      locationTypeNormalized: "h3",
      eventTimestamp: new Date(1_700_000_100_000),
      eventTimestampRaw: "1700000100",
      memo: "a sensor reading",
      applicationFields: {
        accuracy_m: 12,
        reading: (2n ** 200n).toString(),
        device: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
        tags: [`0x${"ab".repeat(32)}`],
        verified: true,
      },
    });
    expect(row.latitude).toBeCloseTo(37.777, 2);
  });

  it("location as bytes: UTF-8 text is read as the location; other bytes are kept as hex with a warning", () => {
    const text = rowOf(DEVNET_SCHEMAS.sdk, {
      specVersion: 2,
      srs: "EPSG:4326",
      locationType: "coordinate-decimal.lon-lat",
      location: `0x${Buffer.from("2.3522, 48.8566").toString("hex")}`,
    });
    expect(text).toMatchObject({ location: "2.3522, 48.8566", longitude: 2.3522, latitude: 48.8566 });
    const binary = rowOf(DEVNET_SCHEMAS.sdk, { locationType: "geohash", location: "0xfffefd" });
    expect(binary).toMatchObject({
      location: "0xfffefd",
      longitude: null,
      decodeWarning: "location is bytes that are not UTF-8 text; kept as hex",
    });
  });

  it("a schema that is not the protocol's (allowed by UID) keeps every field as application fields", () => {
    const schema = DEVNET_SCHEMAS.review;
    const row = attestationRow(
      chain,
      { params: describeSchema(schemaUid(schema), schema).parsed!.params, protocolVersion: null },
      onchainAttestation(encodeRecord(schema, { location: "Café de Flore", comment: "good", rating: 5n })),
      at,
    );
    expect(row).toMatchObject({
      protocolVersion: null,
      location: "Café de Flore",
      locationTypeNormalized: null,
      decodeWarning: "no location type was given",
      applicationFields: { comment: "good", rating: "5" },
    });
  });

  it("v0.1 records keep every field they had, and say their schema's protocol version", () => {
    const row = v01Row({ locationType: "DecimalDegrees<string>", location: "1.5, 2.5" });
    expect(row).toMatchObject({
      protocolVersion: "0.1",
      lpVersion: null,
      applicationFields: null,
      locationTypeNormalized: "coordinate-decimal+lon-lat",
      recipeType: [],
      recipePayload: [],
      mediaType: [],
      mediaData: [],
      memo: "",
      eventTimestampRaw: "0",
    });
  });
});
