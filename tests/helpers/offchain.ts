import {
  Offchain,
  OffchainAttestationVersion,
  type SignedOffchainAttestation,
} from "@ethereum-attestation-service/eas-sdk";
import { Wallet } from "ethers";
import { type Hex, toHex, zeroHash } from "viem";
import { LOCATION_SCHEMA_UID } from "../../lib/chains/schema.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import {
  DEVNET_SCHEMA_UIDS,
  DEVNET_SCHEMAS,
  encodeRecord,
  registerSchemas,
} from "../../lib/devnet/schemas.js";
import { startTestDevnet } from "./anvil.js";
import { createTestApp, type TestApp } from "./app.js";

/** anvil's first default key (a public test key): the attester of the off-chain tests' records. */
export const PUBLISHER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
export const publisher = new Wallet(PUBLISHER_KEY);

export const nowSeconds = (): bigint => BigInt(Math.floor(Date.now() / 1000));

/** JSON with big integers as decimal strings, as a client sends the EAS SDK's objects. */
export const jsonOf = (value: unknown): string =>
  JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v));

/** The EAS SDK's off-chain signer for the devnet's EAS (or another chain or contract, to tamper with the domain). */
export const offchainOf = (
  devnet: Pick<Devnet, "chainId" | "eas">,
  version: OffchainAttestationVersion = OffchainAttestationVersion.Version2,
  chainId = BigInt(devnet.chainId),
  address: string = devnet.eas,
): Offchain => new Offchain({ address, version: "1.3.0", chainId }, version, undefined as never);

export type OffchainParams = {
  schema: Hex;
  data: Hex;
  time?: bigint;
  expirationTime?: bigint;
  recipient?: string;
};

/** An off-chain attestation signed by the EAS SDK: revocable, no reference, now unless told. */
export function signOffchain(
  offchain: Offchain,
  p: OffchainParams,
  wallet: Wallet = publisher,
): Promise<SignedOffchainAttestation> {
  return offchain.signOffchainAttestation(
    {
      schema: p.schema,
      recipient: p.recipient ?? "0x000000000000000000000000000000000000dEaD",
      time: p.time ?? nowSeconds(),
      expirationTime: p.expirationTime ?? 0n,
      revocable: true,
      refUID: zeroHash,
      data: p.data,
    },
    wallet,
  );
}

/**
 * The service over the devnet for the off-chain tests: the devnet its one chain, no confirmations (a reorg reaches
 * indexed blocks without mining dozens), and no publication limits per minute.
 */
export const offchainTestApp = (rpcUrl: string): Promise<TestApp> =>
  createTestApp({
    CRON_SECRET: "test-secret",
    CHAINS: "devnet",
    RPC_URL_DEVNET: rpcUrl,
    CONFIRMATIONS_DEVNET: "0",
    PUBLISH_PER_MINUTE_CLIENT: "0",
    PUBLISH_PER_MINUTE_ATTESTER: "0",
  });

const CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";

/** The location schemas the off-chain tests sign records of: v0.1 and the devnet's v0.2 variants. */
export const OFFCHAIN_SCHEMAS = {
  v01: LOCATION_SCHEMA_UID as Hex,
  appendix: DEVNET_SCHEMA_UIDS.appendix,
  dart: DEVNET_SCHEMA_UIDS.dart,
  sdk: DEVNET_SCHEMA_UIDS.sdk,
};

/** What each schema's record holds, by the schema's field names: one point, at `lon`, `lat`. */
export function recordData(schema: keyof typeof OFFCHAIN_SCHEMAS, lon: number, lat: number): Hex {
  const point = JSON.stringify({ type: "Point", coordinates: [lon, lat] });
  // The protocol's snake_case fields of the place, as the appendix and DART schemas name them.
  const snakeCase = { srs: CRS84, location_type: "geojson-point", location: point };
  switch (schema) {
    case "v01":
      return encodeLocationProof({
        locationType: "geojson-point",
        location: point,
        eventTimestamp: nowSeconds() - 60n,
        memo: "v01",
      });
    case "appendix":
      return encodeRecord(DEVNET_SCHEMAS.appendix, { ...snakeCase, lp_version: 1 });
    case "dart":
      return encodeRecord(DEVNET_SCHEMAS.dart, {
        lp_version: "1.0.0",
        ...snakeCase,
        event_timestamp: nowSeconds() - 30n,
        memo: "dart",
      });
    case "sdk":
      return encodeRecord(DEVNET_SCHEMAS.sdk, {
        specVersion: 2,
        srs: CRS84,
        locationType: "geojson-point",
        location: toHex(point),
      });
  }
}

/** A devnet of the test file's own with the v0.2 schemas the records are signed for registered (and `more`). */
export async function offchainDevnet(more: string[] = []): Promise<Devnet> {
  const devnet = await startTestDevnet();
  await registerSchemas(devnet.rpcUrl, devnet.schemaRegistry, [
    DEVNET_SCHEMAS.appendix,
    DEVNET_SCHEMAS.dart,
    DEVNET_SCHEMAS.sdk,
    ...more,
  ]);
  return devnet;
}
