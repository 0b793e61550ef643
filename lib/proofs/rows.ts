import { type AnyColumn, Column, getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../db/client.js";
import { type LocationProofRow, locationProofs as p } from "../../db/schema.js";
import { proofsFrom, type Source } from "./source.js";
import { renderedOnce } from "./sql-once.js";

/*
 * Reading proof rows: one SELECT of the columns a response is made of, rows decoded by the columns' own Drizzle
 * decoders.
 *
 * `db.select().from(p)` renders its whole select list anew on every request and maps every value through a generic
 * per-field loop, a visible share of a small page's CPU. Here the select list is rendered once, and each row is decoded by a per-column function fixed at load time. The values are the same as
 * Drizzle's select gives on every driver: `db.execute` and `db.select` send the query with the same type parsers
 * (node-postgres, Neon and PGlite alike hand timestamps over as text), and each value goes through its column's
 * mapFromDriverValue, as Drizzle's own mapping does (null stays null).
 */

/**
 * The columns no response reads: the sync engine's own bookkeeping (the block hash and log index of the event, the
 * block of a revocation) and the raw attestation data (ABI-encoded hex, kept for
 * re-decoding; a real attestation's is the largest column of its row). Reading them cost every page transfer and
 * parsing for nothing. (`indexed_at` is read: an off-chain record's is when it was published, lib/proofs/source.ts.)
 */
const UNREAD = ["data", "blockHash", "logIndex", "revocable", "revocationBlockNumber"] as const;

/**
 * A proof as the read paths see it: every column but the UNREAD ones, and, in a proximity query, the distance in
 * metres from the query's point where the query reads it as a number (RowsQuery.distance).
 */
export type ProofRow = Omit<LocationProofRow, (typeof UNREAD)[number]> & { distance?: number };

const COLUMNS = Object.entries(getTableColumns(p))
  .filter(([key]) => !(UNREAD as readonly string[]).includes(key))
  .map(([key, column]) => ({
    key,
    name: column.name,
    // A column that keeps the driver's value as it is (text, boolean, float8: Column's own mapFromDriverValue) is
    // copied without a call.
    decode:
      column.mapFromDriverValue === Column.prototype.mapFromDriverValue
        ? undefined
        : (value: unknown) => column.mapFromDriverValue(value),
  }));

const SELECT_LIST = sql.raw(COLUMNS.map((c) => `"${getTableName(p)}"."${c.name}"`).join(", "));

/**
 * Every row starts as a copy of this template, which holds every key in order: all rows share one object layout.
 * (An object grown one computed key at a time turns into a slow dictionary object past a dozen keys.)
 */
const TEMPLATE: Record<string, unknown> = Object.fromEntries(COLUMNS.map((c) => [c.key, null]));

function decodeRow(raw: Record<string, unknown>): ProofRow {
  const row = { ...TEMPLATE };
  for (const c of COLUMNS) {
    const value = raw[c.name];
    if (value !== null && value !== undefined) row[c.key] = c.decode ? c.decode(value) : value;
  }
  return row as ProofRow;
}

export type RowsQuery = {
  /** where the rows come from (lib/proofs/source.ts): the on-chain table when unset */
  source?: Source | undefined;
  where?: SQL | undefined;
  orderBy: SQL[];
  limit: number;
  offset?: number;
  /**
   * Also read the statement's MVCC snapshot (`pg_current_snapshot()`), for the count cache (lib/proofs/count.ts):
   * an uncorrelated subquery, so PostgreSQL evaluates it once (an InitPlan) and the page's plan is unchanged. Only
   * a page that has rows can carry it. Only for a server that has the function (PostgreSQL 13 and later).
   */
  snapshot?: boolean;
  /**
   * More of the same (uncorrelated subqueries, a select list ending in ", "), read before the rows' own columns and
   * handed back in ReadRows.carried: the request's data version (lib/data-version/version.ts, carryDataVersion).
   */
  carry?: SQL | undefined;
  /**
   * Page the sort keys first, and read the columns (or write the JSON) only for the page's rows, found by primary
   * key. With `offset`: PostgreSQL computes a statement's select list below its LIMIT, so a deep OFFSET built the
   * JSON of every row it skipped, and ran out of its time budget; the keys alone are read from the order index. For
   * a small box on the representative point: the matches' keys are sorted from the point's index. Either way
   * without visiting the table where the filter allows (an index-only scan).
   */
  keysFirst?: boolean;
  /**
   * Also read this expression as the row's `distance` column, a number (a proximity query: lib/proofs/near.ts,
   * distanceSql), where one is needed: rows read as fields, and the nearest-first order (its ORDER BY names the
   * column, its cursors hold the value). A row's JSON writes its own (lib/proofs/json-sql.ts, RowJson).
   */
  distance?: SQL | undefined;
  /**
   * Rows read as JSON (selectProofJson) only while their JSON adds up to at most `budget` bytes, the first row
   * always when `first` (a page carries at least one): the rest of the statement's rows are never sent.
   */
  bytes?: { budget: number; first: boolean } | undefined;
};

/**
 * Rows as read, and the statement's snapshot when the query asked for it and a row carried it; `cut`: the byte
 * budget (RowsQuery.bytes) left out rows the statement found.
 */
export type ReadRows<T> = {
  rows: T[];
  snapshot: string | undefined;
  cut?: boolean;
  /** the first row as the driver gave it, when the query carried more (RowsQuery.carry) and found a row */
  carried?: Record<string, unknown>;
};

/** The MVCC snapshot a statement runs under, as text: the count cache's key (lib/proofs/count.ts). */
export const SNAPSHOT_TEXT = sql`pg_current_snapshot()::text`;
const SNAPSHOT_COLUMN = renderedOnce(sql`(select ${SNAPSHOT_TEXT}) as "snapshot", `);

/** The WHERE, ORDER BY, LIMIT and OFFSET of a rows query, as written after its FROM. */
const clauses = (q: RowsQuery): SQL =>
  sql`${q.where ? sql` where ${q.where}` : sql``} order by ${sql.join(q.orderBy, sql`, `)} limit ${q.limit}${q.offset ? sql` offset ${q.offset}` : sql``}`;

/** The primary key, and the statement that pages it (RowsQuery.keysFirst). */
const KEY = renderedOnce(sql`(${p.chainId}, ${p.uid})`);
const KEY_LIST = renderedOnce(sql`${p.chainId}, ${p.uid}`);

/**
 * What follows the select list's FROM: the query itself, or, for keysFirst, the rows whose key is among the keys of
 * the page (the same query over the keys alone), in the same order.
 */
const rest = (q: RowsQuery): SQL =>
  q.keysFirst
    ? sql` where ${KEY} in (select ${KEY_LIST} from ${proofsFrom(q.source)}${clauses(q)}) order by ${sql.join(q.orderBy, sql`, `)}`
    : clauses(q);

/** The distance column, when the query reads it. */
const distanceColumn = (q: RowsQuery): SQL => (q.distance ? sql`${q.distance} as "distance", ` : sql``);

/** A row's distance, as the driver gave it (float8: a number on every driver; text is parsed to be safe). */
function setDistance(row: Record<string, unknown>, raw: Record<string, unknown>) {
  const d = raw.distance;
  if (d !== undefined && d !== null) row.distance = typeof d === "number" ? d : Number(d);
}

const snapshotOf = (q: RowsQuery, raw: Record<string, unknown>[]) =>
  q.snapshot && raw.length ? (raw[0]!.snapshot as string) : undefined;

/** What a statement's first row carried beside the rows (RowsQuery.carry). */
const carriedOf = (q: RowsQuery, raw: Record<string, unknown>[]) => (q.carry ? { carried: raw[0] } : {});

/**
 * The rows read, and the driver's array of them emptied. The statement's promise lives long enough for V8 to promote
 * it to the old generation, and once resolved it holds the driver's result: a young-generation collection takes what
 * an old object refers to as alive, so the driver's rows (each with its JSON text) would survive every collection
 * and be promoted in turn, making V8 grow its young generation (a download's memory: lib/exports/batches.ts). Emptied,
 * they die young with the request.
 */
function done<T>(raw: Record<string, unknown>[], result: ReadRows<T>): ReadRows<T> {
  raw.length = 0;
  return result;
}

/** The select list's head: what the statement reads besides each row's own columns. */
const head = (q: RowsQuery): SQL =>
  sql`${q.snapshot ? SNAPSHOT_COLUMN : sql``}${q.carry ?? sql``}${distanceColumn(q)}`;

/** Proof rows matching `where`, in `orderBy`'s order, `limit` of them after skipping `offset`. */
export async function selectProofs(db: Db, q: RowsQuery): Promise<ReadRows<ProofRow>> {
  const raw = await queryRows<Record<string, unknown>>(
    db,
    sql`select ${head(q)}${SELECT_LIST} from ${proofsFrom(q.source)}${rest(q)}`,
  );
  const rows = raw.map((r) => {
    const row = decodeRow(r);
    if (q.distance) setDistance(row, r);
    return row;
  });
  return done(raw, { rows, snapshot: snapshotOf(q, raw), ...carriedOf(q, raw) });
}

/**
 * A proof read as JSON (lib/proofs/json-sql.ts): its text in `json` (in a proximity query, its distance included),
 * and of its fields only the `keys` asked for (the sort key a cursor is made of, lib/proofs/cursor.ts) and the
 * distance column when the query reads it; the others are not read, and absent (jsonTemplate).
 */
export type JsonRow = ProofRow & { json: string };

/**
 * The object every row of a JSON read starts as, made once per statement: the key columns read beside the text (a
 * cursor's), `distance` where the query reads it, and `json`, so that the rows of a read share one layout. Not the
 * whole row's TEMPLATE: a download holds a batch of these until it is encoded, and every field more is memory that
 * outlives the young generation's collections (lib/exports/budget.ts).
 */
function jsonTemplate(columns: readonly { key: string }[], distance: boolean): Record<string, unknown> {
  const template: Record<string, unknown> = Object.fromEntries(columns.map((c) => [c.key, null]));
  if (distance) template.distance = null;
  template.json = "";
  return template;
}

/** As selectProofs, each row as the JSON text `json` writes, with the columns `keys` beside it. */
export async function selectProofJson(
  db: Db,
  q: RowsQuery,
  json: SQL,
  keys: readonly (AnyColumn | SQL)[],
): Promise<ReadRows<JsonRow>> {
  const names = new Set(keys.map((k) => (k instanceof Column ? k.name : undefined)));
  const columns = COLUMNS.filter((c) => names.has(c.name));
  const list = sql.raw(columns.map((c) => `"${getTableName(p)}"."${c.name}", `).join(""));
  const select = sql`select ${head(q)}${list}${json} as "json" from ${proofsFrom(q.source)}${rest(q)}`;
  const raw = await queryRows<Record<string, unknown>>(db, q.bytes ? withinBytes(select, q.bytes) : select);
  const template = jsonTemplate(columns, q.distance !== undefined);
  const rows = raw.map((r) => {
    const row: Record<string, unknown> = { ...template, json: r.json };
    for (const c of columns) {
      const value = r[c.name];
      if (value !== null && value !== undefined) row[c.key] = c.decode ? c.decode(value) : value;
    }
    if (q.distance) setDistance(row, r);
    return row as JsonRow;
  });
  // The last row sent has one after it (its "lead"): the budget left that one out.
  const cut = q.bytes !== undefined && raw.length > 0 && raw[raw.length - 1]!.page_lead != null;
  return done(raw, { rows, snapshot: snapshotOf(q, raw), cut, ...carriedOf(q, raw) });
}

/**
 * The rows of `select` (in its order: a window without ORDER BY reads its rows as they come) while the running sum
 * of their JSON's bytes stays within the budget; each row says whether the statement found one after it ("lead").
 * The rows past the budget are written by PostgreSQL but not sent: a page's transfer and memory are its budget.
 *
 * No ORDER BY outside: the rows leave the window in the order they entered it (its frame and lead() read one row
 * ahead at most, and the filter above keeps them as they come), so the statement streams. A sort by the row's
 * number there would hold every row of the page, JSON included, until the last was written: the database would
 * write the whole page before sending its first row, and the client would parse none of it meanwhile.
 * tests/native/explain.test.ts checks the plan.
 */
function withinBytes(select: SQL, bytes: { budget: number; first: boolean }): SQL {
  const budget = sql.raw(String(Math.max(0, Math.floor(bytes.budget))));
  const first = bytes.first ? sql` or s."page_n" = 1` : sql``;
  return sql`select * from (select r.*, sum(coalesce(octet_length(r."json"), 0)) over (rows between unbounded preceding and current row) as "page_run", row_number() over () as "page_n", lead(1) over () as "page_lead" from (${select}) r) s where s."page_run" <= ${budget}${first}`;
}
