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
