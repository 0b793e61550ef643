import { keccak_256 } from "@noble/hashes/sha3";
import { and, eq } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { Db } from "../../db/client.js";
import { chainSchemas } from "../../db/schema.js";
import { type ChainConfig, chainConfigs } from "../chains/registry.js";
import { LOCATION_SCHEMA_UID } from "../chains/schema.js";
import type { Config } from "../config.js";
import { ApiError, type ErrorCode } from "../http/errors.js";
import { type DecodingSchema, V01_DECODING } from "../sync/decode-attestation.js";
import { describeSchema, indexes } from "../sync/schemas.js";
import type { SignedOffchain } from "./formats.js";
import { attestationDigest, recoverSigner } from "./signature.js";

/** A refusal of a publication: 422 (the attestation is well-formed and not acceptable), each reason its code. */
export const refused = (code: ErrorCode, message: string, parameter?: string) =>
  new ApiError(422, code, message, parameter ? { parameter } : {});

/**
 * The uid of an off-chain attestation, as EAS computes it (Offchain.getOffchainUID): keccak256 of the packed
 * version, the schema uid's hex text as UTF-8 bytes (the SDK hashes the string, not the 32 bytes), recipient, the
 * zero address (the attester is not part of it), time, expiration time, revocable, refUID, data, the salt (version
 * 2) and a zero uint32 nonce. tests/offchain/ hold it equal to the SDK's.
 */
export function offchainUid(s: Pick<SignedOffchain, "version" | "message">): Hex {
  const m = s.message;
  const data = Buffer.from(m.data.slice(2), "hex");
  // version 2, schema 66, recipient 20, attester 20, time 8, expiration 8, revocable 1, refUID 32, data, salt 32,
  // nonce 4
  const packed = Buffer.alloc(
    2 + 66 + 20 + 20 + 8 + 8 + 1 + 32 + data.length + (s.version === 2 ? 32 : 0) + 4,
  );
  let at = packed.writeUInt16BE(s.version, 0);
  at += packed.write(m.schema, at, "utf8");
  at += packed.write(m.recipient.slice(2), at, "hex");
  at += 20; // the zero address
  at = packed.writeBigUInt64BE(m.time, at);
  at = packed.writeBigUInt64BE(m.expirationTime, at);
  at = packed.writeUInt8(m.revocable ? 1 : 0, at);
  at += packed.write(m.refUID.slice(2), at, "hex");
  at += data.copy(packed, at);
  if (s.version === 2) at += packed.write(m.salt!.slice(2), at, "hex");
  return `0x${Buffer.from(keccak_256(packed)).toString("hex")}`;
}

/** The networks of a configuration, worked out once (a Config does not change; a new one is another key). */
const networks = new WeakMap<Config, ChainConfig[]>();

/** The configured (enabled) network whose EAS is the domain's verifying contract on the domain's chain. */
export function networkOf(config: Config, s: SignedOffchain): ChainConfig {
  const chainId = s.domain.chainId;
  let configured = networks.get(config);
  if (!configured) {
    configured = chainConfigs(config);
    networks.set(config, configured);
  }
  const network = configured.find(
    (c) =>
      c.enabled &&
      BigInt(c.chainId) === chainId &&
      c.eas.toLowerCase() === s.domain.verifyingContract.toLowerCase(),
  );
  if (!network) {
    throw refused(
      "UnknownNetwork",
      `The signature's domain (chain ${chainId}, verifying contract ${s.domain.verifyingContract}) is not the EAS of a network this service indexes`,
      "domain",
    );
  }
  return network;
}

/**
 * The attester: the address the EIP-712 signature recovers, over the EAS types of the attestation's version and
 * the domain as sent (lib/offchain/signature.ts). When the package names a signer, it must be that address.
 */
export async function recoverAttester(s: SignedOffchain): Promise<Address> {
  if (s.domain.name !== "EAS Attestation")
    throw refused("InvalidSignature", "The domain's name is not EAS's (EAS Attestation)", "domain.name");
  let attester: Address;
  try {
    attester = recoverSigner(s, attestationDigest(s));
  } catch {
    throw refused("InvalidSignature", "The signature is not a valid secp256k1 signature", "signature");
  }
  if (s.signer && attester.toLowerCase() !== s.signer.toLowerCase()) {
    throw refused(
      "InvalidSignature",
      `The signature was not made by the signer ${s.signer} over this attestation`,
      "signature",
    );
  }
  return attester;
}

export function checkUid(s: SignedOffchain): void {
  const computed = offchainUid(s);
  if (computed !== s.uid.toLowerCase())
    throw refused("UidMismatch", `The uid ${s.uid} is not the attestation's (${computed})`, "uid");
}

/**
 * Its time: not after now plus the allowed clock skew (a signer's clock may run a little ahead; a record claiming
 * a later time would sort above honest ones forever), and not expired.
 */
export function checkTimes(s: SignedOffchain, maxSkewSeconds: number, nowMs = Date.now()): void {
  const now = BigInt(Math.floor(nowMs / 1000));
  if (s.message.time > now + BigInt(maxSkewSeconds)) {
    throw refused(
      "AttestationInFuture",
      `The attestation's time ${s.message.time} lies more than ${maxSkewSeconds} s after this service's clock (${now})`,
      "message.time",
    );
  }
  if (s.message.expirationTime !== 0n && s.message.expirationTime <= now) {
    throw refused(
      "AttestationExpired",
      `The attestation expired at ${s.message.expirationTime} (now ${now})`,
      "message.expirationTime",
    );
  }
}

/**
 * The schema, when it is a location schema this service indexes on the network: the v0.1 schema (known by uid
 * everywhere), or one the sync engine discovered there (chain_schemas) and indexes; decoded by its field names
 * as on-chain records are (lib/sync/decode-attestation.ts).
 */
export async function locationSchemaOf(
  db: Db,
  config: Config,
  network: ChainConfig,
  schemaUid: Hex,
): Promise<DecodingSchema> {
  const uid = schemaUid.toLowerCase();
  const unknown = () =>
    refused(
      "UnknownSchema",
      `The schema ${uid} is not a location schema this service indexes on ${network.name}`,
      "message.schema",
    );
  if (!indexes(config.schemas, uid, true)) throw unknown();
  if (uid === LOCATION_SCHEMA_UID) return V01_DECODING;
  const [row] = await db
    .select({ schema: chainSchemas.schema, location: chainSchemas.location, state: chainSchemas.state })
    .from(chainSchemas)
    .where(and(eq(chainSchemas.chainId, network.chainId), eq(chainSchemas.uid, uid)));
  if (!row || row.state === "off" || !row.location) throw unknown();
  const described = describeSchema(uid, row.schema);
  if (!described.location || !described.parsed) throw unknown();
  return { params: described.parsed.params, protocolVersion: described.protocolVersion };
}
