import type { RowJson } from "../proofs/json-sql.js";
import type { ExportColumn } from "./columns.js";

/**
 * A download's encoder: bytes before the rows (given the exact number of rows the response will hold), bytes for
 * each batch of rows (each row the feature's JSON text as PostgreSQL wrote it), and bytes after the last row. It
 * holds no more than a batch: what it returns is sent and let go of. A writer on a thread of its own
 * (lib/exports/thread.ts) answers each call later, in order, and is closed when the download ends whichever way.
 */
export interface ExportWriter<Bytes extends Chunks = Chunks> {
  /**
   * The text PostgreSQL writes for each row, when the writer takes its rows as something else than the list's own
   * feature JSON (e.g. CSV records written by the database): `write` then gets these texts.
   */
  rowSql?: RowJson;
  /** the row text per database batch this writer keeps its memory with (lib/exports/budget.ts, batchBytes) */
  batchBytes?: number;
  start(rows: number): Bytes;
  write(features: readonly string[]): Bytes;
  finish(): Bytes;
  /** lets go of what the writer holds beyond the response (its thread), however the download ended */
  close?(): void;
}

/** What a writer's call writes: its bytes, now or when its thread has encoded them. */
export type Chunks = Uint8Array[] | Promise<Uint8Array[]>;

/** A writer that encodes on the request's own thread, and answers each call at once. */
export type InlineWriter = ExportWriter<Uint8Array[]>;

/** What every writer is made from: the columns, and whether the collection's geometries are points only. */
export type WriterOptions = { columns: ExportColumn[]; points: boolean };
