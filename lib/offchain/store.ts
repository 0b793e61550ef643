import { type Column, getTableColumns, sql } from "drizzle-orm";
import type { Address } from "viem";
import { type Db, queryRows } from "../../db/client.js";
import { type NewOffchainRecordRow, type OffchainRecordRow, offchainRecords as o } from "../../db/schema.js";
import type { ChainConfig } from "../chains/registry.js";
import { ApiError } from "../http/errors.js";
import {
  attestationFields,
  DECODER_VERSION,
  type DecodingSchema,
  decodedColumns,
} from "../sync/decode-attestation.js";
import { eventStateOf } from "./chain-events.js";
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

/*
 * The insert of a publication is one statement whose text is written once: the row travels as one JSON parameter,
 * which PostgreSQL reads into the table's columns by name (jsonb_populate_record: each column typed by its own input
 * function, as a bound parameter would be). Publishing is CPU-bound, and binding forty-odd parameters one by one
 * cost Drizzle and the driver more than the statement costs the database. The revocation and the timestamp are
 * worked out from the stored events (eventStateOf, as refreshRecords works them out), and the returned row is read back with each column's
 * own decoder, as Drizzle reads a row it returns.
 */
const COLUMNS = Object.entries(getTableColumns(o)) as [string, Column][];
const DERIVED = new Set(["revoked", "revocationTime", "timestampedAt", "publishedAt"]);
const GIVEN = COLUMNS.filter(([key]) => !DERIVED.has(key));
const given = GIVEN.map(([, c]) => `"${c.name}"`).join(", ");
const INSERT = [
  sql.raw(`insert into offchain_records (${given}, revoked, revocation_time, timestamped_at)
select ${GIVEN.map(([, c]) => `r."${c.name}"`).join(", ")}, e.rt is not null, e.rt, e.ts
  from jsonb_populate_record(null::offchain_records, `),
  sql.raw(`::jsonb) r,
       lateral (select ${eventStateOf("r")}) e
    on conflict do nothing
 returning *`),
] as const;

/** The row as JSON under its column names (dates as ISO text, JSON columns as themselves, absent ones null). */
function rowJson(row: NewOffchainRecordRow): string {
  const out: Record<string, unknown> = {};
  for (const [key, column] of GIVEN) out[column.name] = (row as Record<string, unknown>)[key] ?? null;
  return JSON.stringify(out);
}

function fromDriver(raw: Record<string, unknown>): OffchainRecordRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of COLUMNS) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as OffchainRecordRow;
}

/**
 * Stores a verified record once, in one statement: concurrent publications of one attestation race on the primary
 * key, one insert wins and the others read its row (200, idempotent). The uid does not cover the attester (EAS
 * leaves it out), so the same message signed by another key has the same uid: that is a conflict (409), never a
 * silent replacement. A record revoked or timestamped on its chain before it was published is stored so: its
 * revocation and timestamp are worked out in the insert from the stored events, as refreshRecords (chain-events.ts)
 * works them out for held records when events come.
 */
export async function storeRecord(db: Db, row: NewOffchainRecordRow): Promise<Stored> {
  const [inserted] = await queryRows(db, sql`${INSERT[0]}${rowJson(row)}${INSERT[1]}`);
  if (inserted) return { row: fromDriver(inserted), created: true };
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
