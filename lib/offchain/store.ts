import { sql } from "drizzle-orm";
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
 * Stores a verified record once, in one statement: concurrent publications of one attestation race on the primary
 * key, one insert wins and the others read its row (200, idempotent). The uid does not cover the attester (EAS
 * leaves it out), so the same message signed by another key has the same uid: that is a conflict (409), never a
 * silent replacement. A record revoked or timestamped on its chain before it was published is stored so: its
 * revocation and timestamp are worked out in the insert from the stored events, as refreshRecords (chain-events.ts)
 * works them out for held records when events come.
 */
export async function storeRecord(db: Db, row: NewOffchainRecordRow): Promise<Stored> {
  const events = (kind: "revoked" | "timestamped") =>
    sql`(select min(e.time) from offchain_chain_events e where e.chain_id = ${row.chainId} and e.uid = ${row.uid}
          and e.kind = ${kind}${kind === "revoked" ? sql` and e.revoker = ${row.prover}` : sql``})`;
  const revoked = events("revoked");
  const inserted = await db
    .insert(o)
    .values({
      ...row,
      revoked: sql`${revoked} is not null`,
      revocationTime: revoked,
      timestampedAt: events("timestamped"),
    })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return { row: inserted[0], created: true };
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
