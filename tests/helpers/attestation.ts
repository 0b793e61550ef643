import type { Hex } from "viem";
import type { OnchainAttestation } from "../../lib/sync/decode-attestation.js";

/** An attestation as EAS returns it, holding `data`; `extra` sets any of its other fields. */
export const onchainAttestation = (
  data: Hex,
  extra: Partial<OnchainAttestation> = {},
): OnchainAttestation => ({
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
