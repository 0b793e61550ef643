import { AsyncLocalStorage } from "node:async_hooks";
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
 * The insert of publications is one statement whose text is written once: the rows travel as one JSON parameter,
 * which PostgreSQL reads into the table's columns by name (jsonb_populate_recordset: each column typed by its own
 * input function, as a bound parameter would be). Publishing is CPU-bound, and binding forty-odd parameters one by
 * one cost Drizzle and the driver more than the statement costs the database. The revocation and the timestamp are
 * worked out from the stored events (eventStateOf, as refreshRecords works them out), and the returned rows are read
 * back with each column's own decoder, as Drizzle reads a row it returns.
 */
const COLUMNS = Object.entries(getTableColumns(o)) as [string, Column][];
const DERIVED = new Set(["revoked", "revocationTime", "timestampedAt", "publishedAt"]);
const GIVEN = COLUMNS.filter(([key]) => !DERIVED.has(key));
const given = GIVEN.map(([, c]) => `"${c.name}"`).join(", ");
const INSERT = [
  sql.raw(`insert into offchain_records (${given}, revoked, revocation_time, timestamped_at)
select ${GIVEN.map(([, c]) => `r."${c.name}"`).join(", ")}, e.rt is not null, e.rt, e.ts
  from jsonb_populate_recordset(null::offchain_records, `),
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
 * Stores a verified record once: concurrent publications of one attestation race on the primary key, one insert wins
 * and the others read its row (200, idempotent). The uid does not cover the attester (EAS leaves it out), so the same
 * message signed by another key has the same uid: that is a conflict (409), never a silent replacement. A record
 * revoked or timestamped on its chain before it was published is stored so: its revocation and timestamp are worked
 * out in the insert from the stored events, as refreshRecords (chain-events.ts) works them out for held records when
 * events come.
 */
export async function storeRecord(db: Db, row: NewOffchainRecordRow): Promise<Stored> {
  const inserted = await insertBatched(db, row);
  if (inserted) return { row: inserted, created: true };
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

/*
 * Group commit. Publications that arrive while an insert is running wait for it and then go together, as one
 * statement and one commit: concurrent publications (an instance serves several requests at once) share the
 * statement's round trip, its parse and bind in the driver, and the commit's WAL flush, which per publication cost
 * more than the row itself. A lone publication goes at once, as before; none waits for a timer. A batch that fails
 * is retried row by row, so one row's error is that row's alone.
 */
type Waiting = {
  row: NewOffchainRecordRow;
  /** Runs a function in this publication's async context: its request's budget and deadline (request-budget.ts). */
  within: <R>(work: () => R) => R;
  resolve: (inserted: OffchainRecordRow | undefined) => void;
  reject: (error: unknown) => void;
};
type Queue = { waiting: Waiting[]; running: boolean };

/** Rows per statement at most: a batch's JSON stays a few hundred kilobytes (the body limit bounds each row). */
const BATCH_MAX = 64;
const queues = new WeakMap<Db, Queue>();

/** Inserts the row with whatever else is waiting: its stored row, or undefined when its uid was held already. */
function insertBatched(db: Db, row: NewOffchainRecordRow): Promise<OffchainRecordRow | undefined> {
  let queue = queues.get(db);
  if (!queue) {
    queue = { waiting: [], running: false };
    queues.set(db, queue);
  }
  const q = queue;
  return new Promise((resolve, reject) => {
    q.waiting.push({ row, within: AsyncLocalStorage.snapshot(), resolve, reject });
    if (!q.running) void drain(db, q);
  });
}

async function drain(db: Db, q: Queue): Promise<void> {
  q.running = true;
  try {
    while (q.waiting.length > 0) {
      const batch = q.waiting.splice(0, BATCH_MAX);
      // Each insert runs in the context of a publication it carries, the latest to arrive (its request has the most
      // time left), never in that of the publication that started the drain: a drain lasts as long as publications
      // keep coming, and a statement sent in a finished request's context would be refused for its spent budget.
      try {
        settle(batch, await batch[batch.length - 1]!.within(() => insertRows(db, batch)));
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else
          for (const one of batch) {
            try {
              settle([one], await one.within(() => insertRows(db, [one])));
            } catch (e) {
              one.reject(e);
            }
          }
      }
    }
  } finally {
    q.running = false;
  }
}

const keyOf = (chainId: number, uid: string) => `${chainId}:${uid}`;

/** Inserts made and the rows they carried, in this instance (the benchmark prints rows per insert). */
export const insertStats = { inserts: 0, rows: 0 };

async function insertRows(db: Db, batch: readonly Waiting[]): Promise<Map<string, OffchainRecordRow>> {
  const json = `[${batch.map((w) => rowJson(w.row)).join(",")}]`;
  const rows = await queryRows(db, sql`${INSERT[0]}${json}${INSERT[1]}`);
  insertStats.inserts++;
  insertStats.rows += batch.length;
  const inserted = new Map<string, OffchainRecordRow>();
  for (const raw of rows) {
    const row = fromDriver(raw);
    inserted.set(keyOf(row.chainId, row.uid), row);
  }
  return inserted;
}

/**
 * Each waiting publication learns whether its row went in. Two of one uid in one batch: the insert kept the first
 * (ON CONFLICT DO NOTHING skips a later row that conflicts with one the statement inserted), so the first whose
 * attester is the stored one is the creator and the others find it held.
 */
function settle(batch: readonly Waiting[], inserted: Map<string, OffchainRecordRow>): void {
  for (const w of batch) {
    const key = keyOf(w.row.chainId, w.row.uid);
    const row = inserted.get(key);
    if (row && row.prover === w.row.prover) {
      inserted.delete(key);
      w.resolve(row);
    } else w.resolve(undefined);
  }
}
