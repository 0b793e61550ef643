import { parseAbi } from "viem";

/**
 * The part of EAS the indexer needs (identical on every chain): the two events, which both carry the schema as
 * topic 3, and getAttestation. Not the full contract ABI: the eas-contracts package is a dev-only dependency.
 */
export const easAbi = parseAbi([
  "event Attested(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID)",
  "event Revoked(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID)",
  "struct Attestation { bytes32 uid; bytes32 schema; uint64 time; uint64 expirationTime; uint64 revocationTime; bytes32 refUID; address recipient; address attester; bool revocable; bytes data; }",
  "function getAttestation(bytes32 uid) view returns (Attestation)",
]);

export const attestedEvent = easAbi[0];
export const revokedEvent = easAbi[1];

/**
 * EAS's events about off-chain attestations (lib/offchain/chain-events.ts): a revocation by the attester, and a
 * timestamp anyone may record. Every argument is indexed: each is a topic, and the event has no data.
 */
export const offchainEventsAbi = parseAbi([
  "event RevokedOffchain(address indexed revoker, bytes32 indexed data, uint64 indexed timestamp)",
  "event Timestamped(bytes32 indexed data, uint64 indexed timestamp)",
]);
export const revokedOffchainEvent = offchainEventsAbi[0];
export const timestampedEvent = offchainEventsAbi[1];

/**
 * The part of the SchemaRegistry schema discovery needs. `Registered` has two signatures: registries of current
 * eas-contracts emit the schema record with it; older ones (deployed on some chains) only the uid and the registerer.
 * Both carry the uid as topic 1, which is all discovery takes from the event: the string comes from getSchema.
 */
export const schemaRegistryAbi = parseAbi([
  "struct SchemaRecord { bytes32 uid; address resolver; bool revocable; string schema; }",
  "event Registered(bytes32 indexed uid, address indexed registerer, SchemaRecord schema)",
  "function getSchema(bytes32 uid) view returns (SchemaRecord)",
]);

/** (parseAbi resolves the struct: the list holds the event and the function only.) */
export const registeredEvent = schemaRegistryAbi.find((x) => x.type === "event" && x.name === "Registered")!;

/** The older registries' event: `Registered(bytes32 indexed uid, address registerer)`. */
export const registeredEventV1 = parseAbi(["event Registered(bytes32 indexed uid, address registerer)"])[0];
