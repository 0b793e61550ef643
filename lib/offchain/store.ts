import type { Address } from "viem";
import type { Db } from "../../db/client.js";
import { type NewOffchainRecordRow, type OffchainRecordRow, offchainRecords as o } from "../../db/schema.js";
import type { ChainConfig } from "../chains/registry.js";
import { ApiError } from "../http/errors.js";
import {
  attestationFields,
  DECODER_VERSION,
  type DecodingSchema,
  decodedColumns,
} from "../sync/decode-attestation.js";
import { refreshRecords } from "./chain-events.js";
import { packageJson, type SignedOffchain } from "./formats.js";
import { findOffchain } from "./records.js";

/** The row of a verified attestation: its fields, its data decoded as an on-chain record's, the signed original. */
export function offchainRow(
  network: ChainConfig,
  schema: DecodingSchema,
  s: SignedOffchain,
  attester: Address,
): NewOffchainRecordRow {
  const m = s.message;
  return {
    ...attestationFields(network, { ...m, uid: s.uid, attester }),
    ...decodedColumns(schema, m.data),
    decoderVersion: DECODER_VERSION,
    offchainVersion: s.version,
    domainVersion: s.domain.version,
    signed: packageJson(s, attester),
  };
}

export type Stored = { row: OffchainRecordRow; created: boolean };

/**
 * Stores a verified record once: concurrent publications of one attestation race on the primary key, one insert
 * wins and the others read its row (200, idempotent). The uid does not cover the attester (EAS leaves it out), so
 * the same message signed by another key has the same uid: that is a conflict (409), never a silent replacement.
 */
export async function storeRecord(db: Db, row: NewOffchainRecordRow): Promise<Stored> {
  const inserted = await db.insert(o).values(row).onConflictDoNothing().returning();
  if (inserted[0]) {
    // Revoked or timestamped on its chain before it was published: the stored events say so (chain-events.ts).
    const changed = await refreshRecords(db, row.chainId, [row.uid]);
    const stored = changed ? await findOffchain(db, row.uid, row.chainId) : undefined;
    return { row: stored ?? inserted[0], created: true };
  }
  const held = await findOffchain(db, row.uid, row.chainId);
  if (!held) throw new Error("offchain record neither inserted nor found");
  if (held.prover !== row.prover) {
    throw new ApiError(
      409,
      "UidConflict",
      `The uid ${row.uid} is held for an attestation by ${held.prover}; this one is signed by ${row.prover}`,
      { parameter: "uid" },
    );
  }
  return { row: held, created: false };
}
